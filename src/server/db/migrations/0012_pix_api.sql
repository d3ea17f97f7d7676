-- API Pix (issue 11): the PSP charge of a PIX invoice, how it was confirmed, and refunds of PIX received.
ALTER TABLE "payments" ADD COLUMN "pix_txid" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "pix_copia_e_cola" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "pix_location" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "pix_charge_status" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "pix_charge_created_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "pix_charge_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "pix_charge_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "pix_confirmed_via" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "pix_payer_name" text;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_pix_txid_unique" UNIQUE("pix_txid");--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_pix_txid_check" CHECK ("payments"."pix_txid" is null or "payments"."pix_txid" ~ '^[A-Za-z0-9]{26,35}$');--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_pix_charge_status_check" CHECK ("payments"."pix_charge_status" is null or "payments"."pix_charge_status" in ('active', 'fallback', 'paid', 'expired', 'removed'));--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_pix_confirmed_via_check" CHECK ("payments"."pix_confirmed_via" is null or "payments"."pix_confirmed_via" in ('api_pix', 'manual'));--> statement-breakpoint
CREATE INDEX "payments_pix_charge_status_idx" ON "payments" USING btree ("pix_charge_status","pix_charge_expires_at") WHERE "payments"."pix_charge_status" in ('active', 'fallback');--> statement-breakpoint
CREATE TABLE "pix_refunds" (
	"id" text PRIMARY KEY NOT NULL,
	"payment_id" text NOT NULL,
	"refund_id" text NOT NULL,
	"end_to_end_id" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"reason" text NOT NULL,
	"status" text NOT NULL,
	"rtr_id" text,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "pix_refunds_refund_id_unique" UNIQUE("refund_id"),
	CONSTRAINT "pix_refunds_amount_check" CHECK ("pix_refunds"."amount_cents" > 0),
	CONSTRAINT "pix_refunds_status_check" CHECK ("pix_refunds"."status" in ('EM_PROCESSAMENTO', 'DEVOLVIDO', 'NAO_REALIZADO'))
);--> statement-breakpoint
ALTER TABLE "pix_refunds" ADD CONSTRAINT "pix_refunds_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "pix_refunds_payment_id_idx" ON "pix_refunds" USING btree ("payment_id","created_at");
