-- Upgrades are priced against the period they change (README "Upgrades are priced against the period they change").
-- An upgrade invoice remembers the end of the period it priced: it is voided when that period ends unpaid, and a
-- confirmation after that (or after the period moved on) goes to review instead of switching the plan. Open and
-- in-review upgrade invoices of older versions priced their subscription's current period.
ALTER TABLE "payments" ADD COLUMN "priced_period_end" timestamp with time zone;--> statement-breakpoint
UPDATE "payments" SET "priced_period_end" = "subscriptions"."current_period_end" FROM "subscriptions" WHERE "subscriptions"."id" = "payments"."subscription_id" AND "payments"."type" = 'upgrade' AND "payments"."status" IN ('pending', 'pending_pix', 'review');--> statement-breakpoint
-- A renewal invoice re-issued at a new price (plan upgraded while it was open) shares the voided one's due date:
-- one live renewal invoice per subscription and period end, voided ones do not count.
DROP INDEX "payments_one_renewal_per_period_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "payments_one_renewal_per_period_idx" ON "payments" USING btree ("subscription_id","due_date") WHERE "payments"."type" = 'renewal' AND "payments"."status" <> 'void';
