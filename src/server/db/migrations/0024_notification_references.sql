-- A notification's subscription and invoice become plain references (schema/lifecycle.ts): each foreign key's check
-- locked the referenced row (FOR KEY SHARE) with one query per message, half the cost of enqueueing a pass's batch.
-- Messages are written from rows just read under their locks, and subscriptions and payments are deleted only with
-- their customer, whose foreign key (user_id, ON DELETE CASCADE) deletes the messages as before.
ALTER TABLE "notifications" DROP CONSTRAINT "notifications_subscription_id_subscriptions_id_fk";
--> statement-breakpoint
ALTER TABLE "notifications" DROP CONSTRAINT "notifications_payment_id_payments_id_fk";
