-- The overdue cancellations' walk: past_due PIX subscriptions in (period end, id) order, as subscriptions_pix_in_force_idx
-- is for the renewal and overdue passes. Through subscriptions_status_idx each claim sorted every past_due row of the
-- period ends it reached (4 480 rows for a batch of 500 at 200 000 subscriptions: 54 ms a claim).
CREATE INDEX "subscriptions_pix_past_due_idx" ON "subscriptions" USING btree ("current_period_end","id") WHERE "subscriptions"."billing_method" = 'pix' AND "subscriptions"."status" = 'past_due';
