-- Card payments of open invoices and card upgrades that switch the plan only once paid (issue 9, items 1 and 3).
-- A one-time card payment of an invoice is recorded on that invoice with Stripe's payment intent id.
ALTER TABLE "payments" ADD COLUMN "stripe_payment_intent_id" text;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_stripe_payment_intent_id_unique" UNIQUE("stripe_payment_intent_id");--> statement-breakpoint
-- The simulator's sessions also pay an invoice: 'subscription' (a new card subscription, or the switch of a
-- pending_pix subscription to card) or 'payment' (one renewal or upgrade invoice).
ALTER TABLE "card_simulator_sessions" ADD COLUMN "mode" text DEFAULT 'subscription' NOT NULL;--> statement-breakpoint
ALTER TABLE "card_simulator_sessions" ADD COLUMN "subscription_id" text;--> statement-breakpoint
ALTER TABLE "card_simulator_sessions" ADD COLUMN "payment_id" text;--> statement-breakpoint
ALTER TABLE "card_simulator_sessions" ADD COLUMN "stripe_payment_intent_id" text;--> statement-breakpoint
ALTER TABLE "card_simulator_sessions" ADD CONSTRAINT "card_simulator_sessions_mode_check" CHECK ("card_simulator_sessions"."mode" in ('subscription', 'payment'));--> statement-breakpoint
-- A card upgrade asked of Stripe with payment_behavior=pending_if_incomplete: the plan switches when its invoice is
-- paid. Stripe's pending update accepts no metadata, so the target plan is kept here.
CREATE TABLE "card_plan_changes" (
	"id" text PRIMARY KEY NOT NULL,
	"subscription_id" text NOT NULL,
	"stripe_subscription_id" text NOT NULL,
	"from_plan_id" text NOT NULL,
	"target_plan_id" text NOT NULL,
	"target_price_cents" bigint NOT NULL,
	"status" text NOT NULL,
	"stripe_invoice_id" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "card_plan_changes_status_check" CHECK ("card_plan_changes"."status" in ('pending', 'declined', 'applied', 'superseded', 'failed', 'expired'))
);
--> statement-breakpoint
ALTER TABLE "card_plan_changes" ADD CONSTRAINT "card_plan_changes_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "card_plan_changes" ADD CONSTRAINT "card_plan_changes_target_plan_id_plans_id_fk" FOREIGN KEY ("target_plan_id") REFERENCES "public"."plans"("id") ON DELETE restrict ON UPDATE cascade;--> statement-breakpoint
CREATE UNIQUE INDEX "card_plan_changes_one_open_idx" ON "card_plan_changes" USING btree ("subscription_id") WHERE "card_plan_changes"."status" in ('pending', 'declined');--> statement-breakpoint
CREATE INDEX "card_plan_changes_subscription_idx" ON "card_plan_changes" USING btree ("subscription_id","created_at");
