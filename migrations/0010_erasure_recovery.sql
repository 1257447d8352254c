ALTER TABLE "users" ADD COLUMN "erasing_since" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "account_erasures" ADD COLUMN "follow_up_due_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "users_erasing_since_idx" ON "users" USING btree ("erasing_since") WHERE "users"."state" = 'erasing';--> statement-breakpoint
CREATE INDEX "account_erasures_follow_up_idx" ON "account_erasures" USING btree ("follow_up_due_at") WHERE "account_erasures"."follow_up_due_at" is not null;--> statement-breakpoint
-- Accounts being erased before this migration have no start time: they count from now.
UPDATE "users" SET "erasing_since" = now() WHERE "state" = 'erasing' AND "erasing_since" IS NULL;
