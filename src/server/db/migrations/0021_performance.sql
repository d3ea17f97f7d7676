-- Plans are served from each process's memory (modules/plans/plans-cache.ts): any change to the table, by any
-- writer, notifies every listening process on commit so that the next request reads the new list.
CREATE FUNCTION notify_plans_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('plans_changed', '');
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER plans_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON plans
  FOR EACH STATEMENT EXECUTE FUNCTION notify_plans_changed();
--> statement-breakpoint
-- The renewal pass's "no renewal invoice for this period yet" (lifecycle/renewals.service.ts): an index probe per
-- candidate instead of a hash join over every renewal payment for each claim (2 s per claim at 1 M payments).
CREATE INDEX payments_renewal_due_idx ON payments (subscription_id, due_date) WHERE type = 'renewal';
--> statement-breakpoint
-- The PIX subscriptions in force that the renewal and overdue passes walk in (current_period_end, id) order,
-- without stepping over the canceled, past_due and card ones ordered before them.
CREATE INDEX subscriptions_pix_in_force_idx ON subscriptions (current_period_end, id)
  WHERE billing_method = 'pix' AND status IN ('active', 'trialing') AND NOT cancel_at_period_end;
