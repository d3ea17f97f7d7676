DROP INDEX "profiles_name_idx";--> statement-breakpoint
CREATE INDEX "profiles_email_role_idx" ON "profiles" USING btree ("email","id","role_id");--> statement-breakpoint
CREATE INDEX "profiles_name_idx" ON "profiles" USING btree ("name","id","role_id");