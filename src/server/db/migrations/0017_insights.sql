-- Admin home (issue 15): the subscription history the MRR movements are computed from, written by triggers on
-- subscriptions (any change of plan, status, customer or billing method) and plans (a price change re-prices the
-- subscriptions that pay it), so no code path can forget it; and the monthly aggregates the billing tick refreshes
-- (revenue reads payments_paid_at_idx from 0004).
CREATE TABLE "subscription_history" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"subscription_id" text NOT NULL,
	"user_id" text NOT NULL,
	"plan_id" text NOT NULL,
	"status" "subscription_status" NOT NULL,
	"billing_method" "billing_method" NOT NULL,
	"mrr_cents" bigint NOT NULL,
	"effective_at" timestamp with time zone NOT NULL,
	"source" text NOT NULL,
	CONSTRAINT "subscription_history_mrr_check" CHECK ("subscription_history"."mrr_cents" >= 0),
	CONSTRAINT "subscription_history_source_check" CHECK ("subscription_history"."source" in ('change', 'plan_price', 'backfill'))
);
--> statement-breakpoint
ALTER TABLE "subscription_history" ADD CONSTRAINT "subscription_history_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "subscription_history_subscription_idx" ON "subscription_history" USING btree ("subscription_id","effective_at","id");
--> statement-breakpoint
CREATE INDEX "subscription_history_user_idx" ON "subscription_history" USING btree ("user_id","effective_at");
--> statement-breakpoint
CREATE TABLE "insights_monthly" (
	"month" date PRIMARY KEY NOT NULL,
	"mrr_start_cents" bigint DEFAULT 0 NOT NULL,
	"mrr_end_cents" bigint DEFAULT 0 NOT NULL,
	"new_cents" bigint DEFAULT 0 NOT NULL,
	"expansion_cents" bigint DEFAULT 0 NOT NULL,
	"contraction_cents" bigint DEFAULT 0 NOT NULL,
	"churned_cents" bigint DEFAULT 0 NOT NULL,
	"reactivated_cents" bigint DEFAULT 0 NOT NULL,
	"customers_start" integer DEFAULT 0 NOT NULL,
	"customers_end" integer DEFAULT 0 NOT NULL,
	"new_customers" integer DEFAULT 0 NOT NULL,
	"churned_customers" integer DEFAULT 0 NOT NULL,
	"reactivated_customers" integer DEFAULT 0 NOT NULL,
	"revenue_pix_cents" bigint DEFAULT 0 NOT NULL,
	"revenue_card_cents" bigint DEFAULT 0 NOT NULL,
	"revenue_manual_cents" bigint DEFAULT 0 NOT NULL,
	"pix_auto_count" integer DEFAULT 0 NOT NULL,
	"pix_auto_p50_seconds" integer,
	"pix_auto_p95_seconds" integer,
	"pix_manual_count" integer DEFAULT 0 NOT NULL,
	"pix_manual_p50_seconds" integer,
	"pix_manual_p95_seconds" integer,
	"refreshed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE FUNCTION "subscription_history_record"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	effective timestamptz;
BEGIN
	IF TG_OP = 'UPDATE' AND NEW.status = OLD.status AND NEW.plan_id = OLD.plan_id AND NEW.user_id = OLD.user_id
		AND NEW.billing_method = OLD.billing_method THEN
		RETURN NULL;
	END IF;
	-- The application's clock (ctx.now()) is what it writes in updated_at; now() only when a write left it as it was.
	IF TG_OP = 'INSERT' THEN
		effective := NEW.created_at;
	ELSIF NEW.updated_at IS DISTINCT FROM OLD.updated_at THEN
		effective := NEW.updated_at;
	ELSE
		effective := now();
	END IF;
	INSERT INTO subscription_history ("subscription_id", "user_id", "plan_id", "status", "billing_method", "mrr_cents", "effective_at", "source")
	SELECT NEW.id, NEW.user_id, NEW.plan_id, NEW.status, NEW.billing_method,
		CASE WHEN NEW.status IN ('active', 'past_due') THEN p.price_cents ELSE 0 END, effective, 'change'
	FROM plans p WHERE p.id = NEW.plan_id;
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "subscriptions_history_trigger" AFTER INSERT OR UPDATE ON "subscriptions" FOR EACH ROW EXECUTE FUNCTION "subscription_history_record"();
--> statement-breakpoint
CREATE FUNCTION "subscription_history_plan_price"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	effective timestamptz;
BEGIN
	IF NEW.price_cents = OLD.price_cents THEN
		RETURN NULL;
	END IF;
	effective := CASE WHEN NEW.updated_at IS DISTINCT FROM OLD.updated_at THEN NEW.updated_at ELSE now() END;
	INSERT INTO subscription_history ("subscription_id", "user_id", "plan_id", "status", "billing_method", "mrr_cents", "effective_at", "source")
	SELECT s.id, s.user_id, s.plan_id, s.status, s.billing_method, NEW.price_cents, effective, 'plan_price'
	FROM subscriptions s WHERE s.plan_id = NEW.id AND s.status IN ('active', 'past_due');
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "plans_price_history_trigger" AFTER UPDATE ON "plans" FOR EACH ROW EXECUTE FUNCTION "subscription_history_plan_price"();
--> statement-breakpoint
-- Backfill from what exists: a subscription was open (pending) from its creation, active (at its plan's current
-- price) from its first paid invoice (or from its creation when it is active without one, e.g. made by an admin),
-- and canceled at canceled_at. Earlier plan changes are not known.
WITH firsts AS (
	SELECT s.id, s.user_id, s.plan_id, s.status, s.billing_method, s.created_at, s.canceled_at, s.updated_at, pl.price_cents,
		(SELECT min(p.paid_at) FROM payments p WHERE p.subscription_id = s.id AND p.status = 'paid') AS first_paid
	FROM subscriptions s JOIN plans pl ON pl.id = s.plan_id
)
INSERT INTO subscription_history ("subscription_id", "user_id", "plan_id", "status", "billing_method", "mrr_cents", "effective_at", "source")
SELECT id, user_id, plan_id, st, billing_method, CASE WHEN st IN ('active', 'past_due') THEN price_cents ELSE 0 END, at, 'backfill'
FROM (
	SELECT f.*, 'pending_pix'::subscription_status AS st, f.created_at AS at FROM firsts f
	WHERE f.first_paid > f.created_at OR (f.first_paid IS NULL AND f.status IN ('pending_pix', 'canceled'))
	UNION ALL
	SELECT f.*, (CASE WHEN f.status = 'canceled' THEN 'active' ELSE f.status::text END)::subscription_status,
		greatest(f.created_at, coalesce(f.first_paid, f.created_at)) FROM firsts f
	WHERE f.first_paid IS NOT NULL OR f.status NOT IN ('pending_pix', 'canceled')
	UNION ALL
	SELECT f.*, 'canceled'::subscription_status, coalesce(f.canceled_at, f.updated_at) FROM firsts f WHERE f.status = 'canceled'
) AS r;
--> statement-breakpoint
-- Live counts of subscriptions per (plan, billing method, status), kept by a trigger, so the admin home's MRR and
-- 'Assinaturas ativas por plano' read a few rows instead of aggregating every subscription. The two counter rows of a
-- change are updated in key order, so two transactions moving subscriptions in opposite directions cannot deadlock.
CREATE TABLE "subscription_counts" (
	"plan_id" text NOT NULL,
	"billing_method" "billing_method" NOT NULL,
	"status" "subscription_status" NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "subscription_counts_pk" PRIMARY KEY("plan_id","billing_method","status")
);
--> statement-breakpoint
CREATE FUNCTION "subscription_counts_add"(p text, m billing_method, s subscription_status, delta bigint) RETURNS void LANGUAGE sql AS $$
	INSERT INTO subscription_counts AS c ("plan_id", "billing_method", "status", "count") VALUES (p, m, s, delta)
	ON CONFLICT ("plan_id", "billing_method", "status") DO UPDATE SET "count" = c."count" + excluded."count";
$$;
--> statement-breakpoint
CREATE FUNCTION "subscription_counts_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		PERFORM subscription_counts_add(NEW.plan_id, NEW.billing_method, NEW.status, 1);
	ELSIF TG_OP = 'DELETE' THEN
		PERFORM subscription_counts_add(OLD.plan_id, OLD.billing_method, OLD.status, -1);
	ELSIF (NEW.plan_id, NEW.billing_method::text, NEW.status::text) IS DISTINCT FROM (OLD.plan_id, OLD.billing_method::text, OLD.status::text) THEN
		IF (OLD.plan_id, OLD.billing_method::text, OLD.status::text) < (NEW.plan_id, NEW.billing_method::text, NEW.status::text) THEN
			PERFORM subscription_counts_add(OLD.plan_id, OLD.billing_method, OLD.status, -1);
			PERFORM subscription_counts_add(NEW.plan_id, NEW.billing_method, NEW.status, 1);
		ELSE
			PERFORM subscription_counts_add(NEW.plan_id, NEW.billing_method, NEW.status, 1);
			PERFORM subscription_counts_add(OLD.plan_id, OLD.billing_method, OLD.status, -1);
		END IF;
	END IF;
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "subscriptions_counts_trigger" AFTER INSERT OR UPDATE OR DELETE ON "subscriptions" FOR EACH ROW EXECUTE FUNCTION "subscription_counts_apply"();
--> statement-breakpoint
INSERT INTO subscription_counts ("plan_id", "billing_method", "status", "count")
SELECT plan_id, billing_method, status, count(*) FROM subscriptions GROUP BY plan_id, billing_method, status;
--> statement-breakpoint
CREATE INDEX "subscriptions_cancel_scheduled_idx" ON "subscriptions" USING btree ("current_period_end") WHERE "subscriptions"."cancel_at_period_end";
--> statement-breakpoint
-- Admin home: open invoices (receivables, PIX waiting, 'Em análise') counted and summed from the index alone.
CREATE INDEX "payments_open_idx" ON "payments" USING btree ("status","due_date") INCLUDE ("amount_cents","payment_method") WHERE "payments"."status" IN ('pending', 'pending_pix', 'review');
