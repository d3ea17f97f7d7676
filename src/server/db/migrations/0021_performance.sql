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
