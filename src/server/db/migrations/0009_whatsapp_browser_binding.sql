ALTER TABLE "whatsapp_verifications" ADD COLUMN "browser_hash" text;
