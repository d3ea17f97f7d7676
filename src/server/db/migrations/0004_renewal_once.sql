-- Lifecycle: one renewal invoice per subscription and period end, whatever the number of workers (the renewal pass
-- inserts with ON CONFLICT DO NOTHING against this index). Hand-written: the payments table belongs to billing's
-- schema file, and these indexes serve only the lifecycle passes.
CREATE UNIQUE INDEX "payments_one_renewal_per_period_idx" ON "payments" USING btree ("subscription_id","due_date") WHERE "payments"."type" = 'renewal';--> statement-breakpoint
-- The tick looks for recent changes only (last 7 days): these keep that cheap on a large database.
CREATE INDEX "payments_paid_at_idx" ON "payments" USING btree ("paid_at") WHERE "payments"."status" = 'paid';--> statement-breakpoint
CREATE INDEX "subscriptions_status_updated_at_idx" ON "subscriptions" USING btree ("status","updated_at");
