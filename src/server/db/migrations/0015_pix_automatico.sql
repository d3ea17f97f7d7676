-- PIX Automático (issue 12): the customer's CPF/CNPJ, the recurrences (authorisations at the PSP, one row per
-- idRec, per subscription) and the recurring charges (one per subscription and cycle: the unique index is what
-- makes the renewal pass exactly once, whatever the number of workers), each with its status history.
ALTER TABLE "profiles" ADD COLUMN "tax_id" text;--> statement-breakpoint
ALTER TABLE "profiles" ADD CONSTRAINT "profiles_tax_id_check" CHECK ("profiles"."tax_id" is null or "profiles"."tax_id" ~ '^([0-9]{11}|[0-9A-Z]{12}[0-9]{2})$');--> statement-breakpoint
CREATE TABLE "pix_recurrences" (
	"id" text PRIMARY KEY NOT NULL,
	"subscription_id" text NOT NULL,
	"id_rec" text NOT NULL,
	"status" text NOT NULL,
	"plan_id" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"retry_policy" text NOT NULL,
	"first_payment_id" text,
	"journey_txid" text,
	"copia_e_cola" text,
	"payer_tax_id" text NOT NULL,
	"cancelled_by" text,
	"end_code" text,
	"history" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"approved_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "pix_recurrences_id_rec_unique" UNIQUE("id_rec"),
	CONSTRAINT "pix_recurrences_status_check" CHECK ("pix_recurrences"."status" in ('CRIADA', 'APROVADA', 'REJEITADA', 'CANCELADA', 'EXPIRADA')),
	CONSTRAINT "pix_recurrences_amount_check" CHECK ("pix_recurrences"."amount_cents" > 0)
);
--> statement-breakpoint
ALTER TABLE "pix_recurrences" ADD CONSTRAINT "pix_recurrences_subscription_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pix_recurrences" ADD CONSTRAINT "pix_recurrences_first_payment_id_fk" FOREIGN KEY ("first_payment_id") REFERENCES "public"."payments"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "pix_recurrences_subscription_idx" ON "pix_recurrences" USING btree ("subscription_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "pix_recurrences_one_pending_idx" ON "pix_recurrences" USING btree ("subscription_id") WHERE "pix_recurrences"."status" = 'CRIADA';--> statement-breakpoint
CREATE TABLE "pix_recurring_charges" (
	"id" text PRIMARY KEY NOT NULL,
	"subscription_id" text NOT NULL,
	"recurrence_id" text NOT NULL,
	"payment_id" text NOT NULL,
	"txid" text NOT NULL,
	"due_date" timestamp with time zone NOT NULL,
	"amount_cents" bigint NOT NULL,
	"status" text NOT NULL,
	"retry_dates" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"attempts" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"reject_code" text,
	"history" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"send_attempts" integer DEFAULT 0 NOT NULL,
	"fallback_at" timestamp with time zone,
	"closed_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "pix_recurring_charges_txid_unique" UNIQUE("txid"),
	CONSTRAINT "pix_recurring_charges_payment_id_unique" UNIQUE("payment_id"),
	CONSTRAINT "pix_recurring_charges_status_check" CHECK ("pix_recurring_charges"."status" in ('PENDENTE', 'CRIADA', 'ATIVA', 'CONCLUIDA', 'REJEITADA', 'EXPIRADA', 'CANCELADA'))
);
--> statement-breakpoint
ALTER TABLE "pix_recurring_charges" ADD CONSTRAINT "pix_recurring_charges_subscription_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pix_recurring_charges" ADD CONSTRAINT "pix_recurring_charges_recurrence_id_fk" FOREIGN KEY ("recurrence_id") REFERENCES "public"."pix_recurrences"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pix_recurring_charges" ADD CONSTRAINT "pix_recurring_charges_payment_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "pix_recurring_charges_one_per_cycle_idx" ON "pix_recurring_charges" USING btree ("subscription_id","due_date");--> statement-breakpoint
CREATE INDEX "pix_recurring_charges_open_idx" ON "pix_recurring_charges" USING btree ("status","due_date") WHERE "pix_recurring_charges"."status" in ('PENDENTE', 'CRIADA', 'ATIVA');
