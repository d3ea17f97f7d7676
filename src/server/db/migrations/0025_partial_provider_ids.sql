-- The payments' provider ids (PIX reference, end-to-end id and txid; Stripe invoice and payment intent) are unique
-- where set, and each is NULL on most rows (a PIX invoice has no Stripe ids, a card one no PIX ids, an unpaid one no
-- end-to-end id). Their UNIQUE constraints indexed every row, NULLs included, so each insert and each status change
-- (never a HOT update: the status is indexed) wrote an entry in every one of them. Each becomes a partial unique
-- index of the rows that carry the id, under the constraint's name (a duplicate reports the same name); uniqueness
-- is unchanged, since NULLs never conflicted. Built before the constraint is dropped, in the migration's transaction.
CREATE UNIQUE INDEX "payments_pix_reference_unique_partial" ON "payments" USING btree ("pix_reference") WHERE "pix_reference" IS NOT NULL;
--> statement-breakpoint
ALTER TABLE "payments" DROP CONSTRAINT "payments_pix_reference_unique";
--> statement-breakpoint
ALTER INDEX "payments_pix_reference_unique_partial" RENAME TO "payments_pix_reference_unique";
--> statement-breakpoint
CREATE UNIQUE INDEX "payments_pix_end_to_end_id_unique_partial" ON "payments" USING btree ("pix_end_to_end_id") WHERE "pix_end_to_end_id" IS NOT NULL;
--> statement-breakpoint
ALTER TABLE "payments" DROP CONSTRAINT "payments_pix_end_to_end_id_unique";
--> statement-breakpoint
ALTER INDEX "payments_pix_end_to_end_id_unique_partial" RENAME TO "payments_pix_end_to_end_id_unique";
--> statement-breakpoint
CREATE UNIQUE INDEX "payments_stripe_invoice_id_unique_partial" ON "payments" USING btree ("stripe_invoice_id") WHERE "stripe_invoice_id" IS NOT NULL;
--> statement-breakpoint
ALTER TABLE "payments" DROP CONSTRAINT "payments_stripe_invoice_id_unique";
--> statement-breakpoint
ALTER INDEX "payments_stripe_invoice_id_unique_partial" RENAME TO "payments_stripe_invoice_id_unique";
--> statement-breakpoint
CREATE UNIQUE INDEX "payments_stripe_payment_intent_id_unique_partial" ON "payments" USING btree ("stripe_payment_intent_id") WHERE "stripe_payment_intent_id" IS NOT NULL;
--> statement-breakpoint
ALTER TABLE "payments" DROP CONSTRAINT "payments_stripe_payment_intent_id_unique";
--> statement-breakpoint
ALTER INDEX "payments_stripe_payment_intent_id_unique_partial" RENAME TO "payments_stripe_payment_intent_id_unique";
--> statement-breakpoint
CREATE UNIQUE INDEX "payments_pix_txid_unique_partial" ON "payments" USING btree ("pix_txid") WHERE "pix_txid" IS NOT NULL;
--> statement-breakpoint
ALTER TABLE "payments" DROP CONSTRAINT "payments_pix_txid_unique";
--> statement-breakpoint
ALTER INDEX "payments_pix_txid_unique_partial" RENAME TO "payments_pix_txid_unique";
