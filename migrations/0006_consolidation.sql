CREATE TABLE "consolidation_cursors" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"memory_created_at" timestamp (3) with time zone,
	"memory_id" uuid,
	"fact_recorded_at" timestamp (3) with time zone,
	"fact_id" uuid,
	"run_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "consolidation_cursors" ADD CONSTRAINT "consolidation_cursors_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "facts_user_recorded_idx" ON "facts" USING btree ("user_id","recorded_at","id");--> statement-breakpoint
CREATE INDEX "facts_user_subject_lower_idx" ON "facts" USING btree ("user_id",lower("subject"));