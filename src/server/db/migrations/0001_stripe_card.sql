CREATE TABLE "card_simulator_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"plan_id" text NOT NULL,
	"plan_name" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"email" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"stripe_subscription_id" text,
	"stripe_customer_id" text,
	"stripe_invoice_id" text,
	"approved_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "card_simulator_sessions_idempotency_key_unique" UNIQUE("idempotency_key"),
	CONSTRAINT "card_simulator_sessions_amount_check" CHECK ("card_simulator_sessions"."amount_cents" > 0)
);
--> statement-breakpoint
CREATE TABLE "stripe_subscription_sync" (
	"stripe_subscription_id" text PRIMARY KEY NOT NULL,
	"subscription_id" text NOT NULL,
	"state_at" timestamp with time zone NOT NULL,
	"last_event_id" text NOT NULL,
	"ended_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "card_simulator_sessions" ADD CONSTRAINT "card_simulator_sessions_user_id_profiles_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."profiles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "card_simulator_sessions" ADD CONSTRAINT "card_simulator_sessions_plan_id_plans_id_fk" FOREIGN KEY ("plan_id") REFERENCES "public"."plans"("id") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "stripe_subscription_sync" ADD CONSTRAINT "stripe_subscription_sync_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "card_simulator_sessions_user_idx" ON "card_simulator_sessions" USING btree ("user_id","created_at");