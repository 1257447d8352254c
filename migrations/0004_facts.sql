CREATE TABLE "facts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"memory_id" uuid,
	"subject" text NOT NULL,
	"predicate" text NOT NULL,
	"value" text NOT NULL,
	"valid_from" timestamp (3) with time zone NOT NULL,
	"valid_to" timestamp (3) with time zone,
	"recorded_at" timestamp (3) with time zone NOT NULL,
	"retracted_at" timestamp (3) with time zone,
	CONSTRAINT "facts_valid_interval_check" CHECK ("facts"."valid_to" is null or "facts"."valid_to" > "facts"."valid_from")
);
--> statement-breakpoint
ALTER TABLE "facts" ADD CONSTRAINT "facts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "facts" ADD CONSTRAINT "facts_memory_id_memories_id_fk" FOREIGN KEY ("memory_id") REFERENCES "public"."memories"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "facts_user_subject_predicate_idx" ON "facts" USING btree ("user_id","subject","predicate","valid_from");--> statement-breakpoint
CREATE INDEX "facts_memory_idx" ON "facts" USING btree ("memory_id");