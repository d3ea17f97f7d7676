-- The admin search uses trigram indexes (ILIKE '%q%'); pg_trgm is a trusted extension (PostgreSQL 13+).
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
DROP INDEX "profiles_created_at_idx";--> statement-breakpoint
DROP INDEX "payments_created_at_idx";--> statement-breakpoint
DROP INDEX "subscriptions_created_at_idx";--> statement-breakpoint
DROP INDEX "subscriptions_plan_id_idx";--> statement-breakpoint
CREATE INDEX "profiles_role_created_at_idx" ON "profiles" USING btree ("role_id","created_at","id");--> statement-breakpoint
CREATE INDEX "profiles_name_idx" ON "profiles" USING btree ("name","id");--> statement-breakpoint
CREATE INDEX "profiles_search_trgm_idx" ON "profiles" USING gin (("name" || ' ' || "email" || ' ' || "company_name" || ' ' || "whatsapp_number") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "payments_status_created_at_idx" ON "payments" USING btree ("status","created_at","id");--> statement-breakpoint
CREATE INDEX "payments_method_created_at_idx" ON "payments" USING btree ("payment_method","created_at","id");--> statement-breakpoint
CREATE INDEX "payments_due_date_idx" ON "payments" USING btree ("due_date","id");--> statement-breakpoint
CREATE INDEX "payments_amount_idx" ON "payments" USING btree ("amount_cents","id");--> statement-breakpoint
CREATE INDEX "payments_target_plan_id_idx" ON "payments" USING btree ("target_plan_id") WHERE "payments"."target_plan_id" is not null;--> statement-breakpoint
CREATE INDEX "subscriptions_status_created_at_idx" ON "subscriptions" USING btree ("status","created_at","id");--> statement-breakpoint
CREATE INDEX "subscriptions_period_end_idx" ON "subscriptions" USING btree ("current_period_end","id");--> statement-breakpoint
CREATE INDEX "profiles_created_at_idx" ON "profiles" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "payments_created_at_idx" ON "payments" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "subscriptions_created_at_idx" ON "subscriptions" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "subscriptions_plan_id_idx" ON "subscriptions" USING btree ("plan_id","created_at","id");