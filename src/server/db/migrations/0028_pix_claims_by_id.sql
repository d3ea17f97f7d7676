-- The billing passes' walk in id order, for a backlog (lifecycle/pass-runner.ts, claimCursor): PIX subscriptions in
-- force and past_due PIX subscriptions by id, beside their (period end, id) walks. Rows claimed in period-end order
-- have random ids: each one's entries in the indexes that begin with the subscription (payments_subscription_id_idx,
-- payments_renewal_due_idx, payments_one_renewal_per_period_idx, subscription_history_subscription_idx,
-- subscriptions_pkey) land on random pages, and after every checkpoint each such page goes whole into the WAL again.
-- Claimed by id, a batch fills neighbouring pages: the 130 000 overdue cancellations of the passes' benchmark wrote
-- 1.7 GB of WAL instead of 2.6 GB.
CREATE INDEX "subscriptions_pix_in_force_id_idx" ON "subscriptions" USING btree ("id") WHERE "subscriptions"."billing_method" = 'pix' AND "subscriptions"."status" IN ('active', 'trialing') AND NOT "subscriptions"."cancel_at_period_end";--> statement-breakpoint
CREATE INDEX "subscriptions_pix_past_due_id_idx" ON "subscriptions" USING btree ("id") WHERE "subscriptions"."billing_method" = 'pix' AND "subscriptions"."status" = 'past_due';
