-- WhatsApp for real (issue 16): every message sent or received by WhatsApp, with the provider's (Meta's) message id
-- unique, so a webhook delivered twice is handled once; the delivery receipts Meta posts back, one row per status;
-- and on each notification the template used, the message id and the last delivery status.
CREATE TABLE "whatsapp_messages" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text,
	"phone" text NOT NULL,
	"direction" text NOT NULL,
	"kind" text NOT NULL,
	"body" text NOT NULL,
	"template" text,
	"provider_message_id" text,
	"notification_id" text,
	"verification_id" text,
	"status" text NOT NULL,
	"error_code" integer,
	"error_title" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "whatsapp_messages_provider_message_id_unique" UNIQUE("provider_message_id"),
	CONSTRAINT "whatsapp_messages_direction_check" CHECK ("whatsapp_messages"."direction" in ('inbound', 'outbound')),
	CONSTRAINT "whatsapp_messages_status_check" CHECK ("whatsapp_messages"."status" in ('received', 'accepted', 'sent', 'delivered', 'read', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "whatsapp_message_statuses" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"message_id" text NOT NULL,
	"status" text NOT NULL,
	"error_code" integer,
	"error_title" text,
	"occurred_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "whatsapp_message_statuses_message_status_unique" UNIQUE("message_id","status")
);
--> statement-breakpoint
ALTER TABLE "whatsapp_messages" ADD CONSTRAINT "whatsapp_messages_user_id_profiles_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."profiles"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "whatsapp_messages" ADD CONSTRAINT "whatsapp_messages_notification_id_notifications_id_fk" FOREIGN KEY ("notification_id") REFERENCES "public"."notifications"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "whatsapp_message_statuses" ADD CONSTRAINT "whatsapp_message_statuses_message_id_whatsapp_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."whatsapp_messages"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "whatsapp_messages_user_idx" ON "whatsapp_messages" USING btree ("user_id","created_at");
--> statement-breakpoint
CREATE INDEX "whatsapp_messages_phone_idx" ON "whatsapp_messages" USING btree ("phone","created_at");
--> statement-breakpoint
CREATE INDEX "whatsapp_messages_verification_idx" ON "whatsapp_messages" USING btree ("verification_id") WHERE "whatsapp_messages"."verification_id" is not null;
--> statement-breakpoint
CREATE INDEX "whatsapp_messages_notification_idx" ON "whatsapp_messages" USING btree ("notification_id") WHERE "whatsapp_messages"."notification_id" is not null;
--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "template" jsonb;
--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "provider_message_id" text;
--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "delivery_status" text;
--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "delivery_error" text;
