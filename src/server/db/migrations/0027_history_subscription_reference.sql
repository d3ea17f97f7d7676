-- A subscription_history row's subscription becomes a plain reference (schema/insights.ts), as a notification's did in
-- 0024 and 0026: the rows are written by the subscriptions' own statement triggers (0017), from the subscription row
-- being written, so the foreign key's check (one query per row, locking that subscription FOR KEY SHARE) could never
-- fail, and it was about a third of the history trigger's time when a billing pass's batch changes 500 statuses. The
-- ON DELETE CASCADE it carried is kept by a statement trigger: deleting subscriptions deletes their history.
ALTER TABLE "subscription_history" DROP CONSTRAINT "subscription_history_subscription_id_subscriptions_id_fk";
--> statement-breakpoint
CREATE FUNCTION subscription_history_forget_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM subscription_history h USING old_rows o WHERE h.subscription_id = o.id;
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER subscriptions_history_delete_trigger AFTER DELETE ON subscriptions
	REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION subscription_history_forget_rows();
