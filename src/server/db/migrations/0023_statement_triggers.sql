-- The subscription history and counts of migration 0017 are written once per statement instead of once per row
-- (transition tables), so a pass that moves a whole batch of subscriptions in one UPDATE writes the batch's history
-- in one INSERT and each counter row once (a row trigger updated the same counter row once per subscription: a
-- 150 000-row UPDATE spent minutes walking that row's versions). Same rows as before: a history row per inserted
-- subscription and per update that changed its status, plan, customer or billing method; the counters move by the
-- statement's net change per (plan, billing method, status), in key order (no deadlock between two writers).
DROP TRIGGER "subscriptions_history_trigger" ON "subscriptions";
--> statement-breakpoint
DROP TRIGGER "subscriptions_counts_trigger" ON "subscriptions";
--> statement-breakpoint
CREATE FUNCTION "subscription_history_record_rows"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO subscription_history ("subscription_id", "user_id", "plan_id", "status", "billing_method", "mrr_cents", "effective_at", "source")
		SELECT n.id, n.user_id, n.plan_id, n.status, n.billing_method,
			CASE WHEN n.status IN ('active', 'past_due') THEN p.price_cents ELSE 0 END, n.created_at, 'change'
		FROM new_rows n JOIN plans p ON p.id = n.plan_id
		ORDER BY n.id;
	ELSE
		-- The application's clock (ctx.now()) is what it writes in updated_at; now() only when a write left it as it was.
		INSERT INTO subscription_history ("subscription_id", "user_id", "plan_id", "status", "billing_method", "mrr_cents", "effective_at", "source")
		SELECT n.id, n.user_id, n.plan_id, n.status, n.billing_method,
			CASE WHEN n.status IN ('active', 'past_due') THEN p.price_cents ELSE 0 END,
			CASE WHEN n.updated_at IS DISTINCT FROM o.updated_at THEN n.updated_at ELSE now() END, 'change'
		FROM new_rows n JOIN old_rows o ON o.id = n.id JOIN plans p ON p.id = n.plan_id
		WHERE NOT (n.status = o.status AND n.plan_id = o.plan_id AND n.user_id = o.user_id
			AND n.billing_method = o.billing_method)
		ORDER BY n.id;
	END IF;
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "subscriptions_history_insert_trigger" AFTER INSERT ON "subscriptions"
	REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "subscription_history_record_rows"();
--> statement-breakpoint
CREATE TRIGGER "subscriptions_history_update_trigger" AFTER UPDATE ON "subscriptions"
	REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "subscription_history_record_rows"();
--> statement-breakpoint
CREATE FUNCTION "subscription_counts_apply_rows"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO subscription_counts AS c ("plan_id", "billing_method", "status", "count")
		SELECT plan_id, billing_method, status, count(*) FROM new_rows
		GROUP BY plan_id, billing_method, status ORDER BY plan_id, billing_method::text, status::text
		ON CONFLICT ("plan_id", "billing_method", "status") DO UPDATE SET "count" = c."count" + excluded."count";
	ELSIF TG_OP = 'DELETE' THEN
		INSERT INTO subscription_counts AS c ("plan_id", "billing_method", "status", "count")
		SELECT plan_id, billing_method, status, -count(*) FROM old_rows
		GROUP BY plan_id, billing_method, status ORDER BY plan_id, billing_method::text, status::text
		ON CONFLICT ("plan_id", "billing_method", "status") DO UPDATE SET "count" = c."count" + excluded."count";
	ELSE
		INSERT INTO subscription_counts AS c ("plan_id", "billing_method", "status", "count")
		SELECT plan_id, billing_method, status, sum(delta) FROM (
			SELECT n.plan_id, n.billing_method, n.status, 1 AS delta
			FROM new_rows n JOIN old_rows o ON o.id = n.id
			WHERE (n.plan_id, n.billing_method::text, n.status::text) IS DISTINCT FROM (o.plan_id, o.billing_method::text, o.status::text)
			UNION ALL
			SELECT o.plan_id, o.billing_method, o.status, -1
			FROM new_rows n JOIN old_rows o ON o.id = n.id
			WHERE (n.plan_id, n.billing_method::text, n.status::text) IS DISTINCT FROM (o.plan_id, o.billing_method::text, o.status::text)
		) d
		GROUP BY plan_id, billing_method, status HAVING sum(delta) <> 0
		ORDER BY plan_id, billing_method::text, status::text
		ON CONFLICT ("plan_id", "billing_method", "status") DO UPDATE SET "count" = c."count" + excluded."count";
	END IF;
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "subscriptions_counts_insert_trigger" AFTER INSERT ON "subscriptions"
	REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "subscription_counts_apply_rows"();
--> statement-breakpoint
CREATE TRIGGER "subscriptions_counts_update_trigger" AFTER UPDATE ON "subscriptions"
	REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "subscription_counts_apply_rows"();
--> statement-breakpoint
CREATE TRIGGER "subscriptions_counts_delete_trigger" AFTER DELETE ON "subscriptions"
	REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "subscription_counts_apply_rows"();
--> statement-breakpoint
DROP FUNCTION "subscription_history_record"();
--> statement-breakpoint
DROP FUNCTION "subscription_counts_apply"();
