-- An account erased by its owner (LGPD): the profile row stays as an anonymous tombstone, because the fiscal records
-- (subscriptions, payments) must keep pointing at someone; deleted_at tells every reader that it is no longer a person.
ALTER TABLE "profiles" ADD COLUMN "deleted_at" timestamp with time zone;
