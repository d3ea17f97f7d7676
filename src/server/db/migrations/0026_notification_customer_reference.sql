-- A notification's customer becomes a plain reference too (schema/lifecycle.ts), as its subscription and invoice did in
-- 0024: the foreign key's check locked the customer's profile row (FOR KEY SHARE) with one query per message, about
-- 40 µs a message in a pass's batch. A customer is deleted only by the daily housekeeping (abandoned sign-ups,
-- lifecycle/maintenance.repo.ts), which deletes the customer's messages in the same transaction, as ON DELETE CASCADE
-- did.
ALTER TABLE "notifications" DROP CONSTRAINT "notifications_user_id_profiles_id_fk";
