CREATE TABLE "triage_attempts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"session_run_id" uuid NOT NULL,
	"begin_stamp" uuid[] NOT NULL,
	"armed_at" timestamp (3) with time zone NOT NULL,
	"outcome" text,
	"finalized_by" text,
	"finalized_at" timestamp (3) with time zone,
	"result" text,
	CONSTRAINT "triage_attempts_outcome_check" CHECK ("triage_attempts"."outcome" is null or "triage_attempts"."outcome" in ('completed', 'expired', 'overflowed', 'superseded')),
	CONSTRAINT "triage_attempts_finalized_by_check" CHECK ("triage_attempts"."finalized_by" is null or "triage_attempts"."finalized_by" in ('complete', 'closer', 'begin'))
);
--> statement-breakpoint
CREATE TABLE "account_erasures" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"erased_at" timestamp (3) with time zone NOT NULL,
	"counts" jsonb NOT NULL,
	CONSTRAINT "account_erasures_user_key" UNIQUE("user_id")
);
--> statement-breakpoint
CREATE TABLE "fact_proposals" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"from_id" uuid NOT NULL,
	"to_id" uuid NOT NULL,
	"rationale" text NOT NULL,
	"similarity" real NOT NULL,
	"status" text DEFAULT 'proposed' NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"decided_at" timestamp (3) with time zone,
	CONSTRAINT "fact_proposals_status_check" CHECK ("fact_proposals"."status" in ('proposed', 'applied', 'rejected')),
	CONSTRAINT "fact_proposals_no_self_check" CHECK ("fact_proposals"."from_id" <> "fact_proposals"."to_id")
);
--> statement-breakpoint
CREATE TABLE "proposals" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"from_id" uuid NOT NULL,
	"to_id" uuid NOT NULL,
	"edge_type" text NOT NULL,
	"memory_type" text NOT NULL,
	"rationale" text NOT NULL,
	"similarity" real NOT NULL,
	"status" text DEFAULT 'proposed' NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"decided_at" timestamp (3) with time zone,
	CONSTRAINT "proposals_status_check" CHECK ("proposals"."status" in ('proposed', 'applied', 'rejected')),
	CONSTRAINT "proposals_edge_type_check" CHECK ("proposals"."edge_type" in ('supersedes', 'updates', 'extends', 'derives')),
	CONSTRAINT "proposals_no_self_check" CHECK ("proposals"."from_id" <> "proposals"."to_id")
);
--> statement-breakpoint
ALTER TABLE "memory_events" ADD COLUMN "triage_attempt_id" uuid;--> statement-breakpoint
ALTER TABLE "commitments" ADD COLUMN "surfaced_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "triage_attempts" ADD CONSTRAINT "triage_attempts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "triage_attempts" ADD CONSTRAINT "triage_attempts_session_run_id_agent_sessions_id_fk" FOREIGN KEY ("session_run_id") REFERENCES "public"."agent_sessions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fact_proposals" ADD CONSTRAINT "fact_proposals_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fact_proposals" ADD CONSTRAINT "fact_proposals_from_id_facts_id_fk" FOREIGN KEY ("from_id") REFERENCES "public"."facts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fact_proposals" ADD CONSTRAINT "fact_proposals_to_id_facts_id_fk" FOREIGN KEY ("to_id") REFERENCES "public"."facts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "proposals" ADD CONSTRAINT "proposals_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "proposals" ADD CONSTRAINT "proposals_from_id_memories_id_fk" FOREIGN KEY ("from_id") REFERENCES "public"."memories"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "proposals" ADD CONSTRAINT "proposals_to_id_memories_id_fk" FOREIGN KEY ("to_id") REFERENCES "public"."memories"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "triage_attempts_run_idx" ON "triage_attempts" USING btree ("session_run_id","armed_at");--> statement-breakpoint
CREATE INDEX "triage_attempts_user_idx" ON "triage_attempts" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "fact_proposals_pair_key" ON "fact_proposals" USING btree ("from_id","to_id");--> statement-breakpoint
CREATE INDEX "fact_proposals_user_status_created_idx" ON "fact_proposals" USING btree ("user_id","status","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "proposals_pair_type_key" ON "proposals" USING btree ("from_id","to_id","edge_type");--> statement-breakpoint
CREATE INDEX "proposals_user_status_created_idx" ON "proposals" USING btree ("user_id","status","created_at");--> statement-breakpoint
CREATE INDEX "agent_sessions_unclosed_last_seen_idx" ON "agent_sessions" USING btree ("last_seen_at") WHERE "agent_sessions"."closed_at" is null;--> statement-breakpoint
CREATE INDEX "agent_sessions_closed_pending_idx" ON "agent_sessions" USING btree ("closed_at") WHERE "agent_sessions"."triage_status" = 'pending' and "agent_sessions"."closed_at" is not null;--> statement-breakpoint
CREATE INDEX "agent_sessions_closed_excerpt_idx" ON "agent_sessions" USING btree ("closed_at") WHERE "agent_sessions"."last_message_excerpt" is not null and "agent_sessions"."closed_at" is not null;