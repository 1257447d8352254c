CREATE TABLE "memories" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"memory_type" text NOT NULL,
	"topic" text NOT NULL,
	"content" text NOT NULL,
	"content_hash" text NOT NULL,
	"scope" text NOT NULL,
	"project" text,
	"tags" text[] DEFAULT '{}'::text[] NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"valid_from" timestamp (3) with time zone NOT NULL,
	"valid_to" timestamp (3) with time zone,
	"recorded_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"session_run_id" uuid,
	"search" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('english', topic), 'A') || setweight(to_tsvector('english', content), 'B')) STORED,
	CONSTRAINT "memories_type_check" CHECK ("memories"."memory_type" in ('decision', 'commitment', 'blocker', 'fact', 'preference', 'pattern', 'note', 'event')),
	CONSTRAINT "memories_status_check" CHECK ("memories"."status" in ('active', 'archived'))
);
--> statement-breakpoint
CREATE TABLE "memory_edges" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"from_id" uuid NOT NULL,
	"to_id" uuid NOT NULL,
	"edge_type" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "memory_edges_no_self_check" CHECK ("memory_edges"."from_id" <> "memory_edges"."to_id"),
	CONSTRAINT "memory_edges_type_check" CHECK ("memory_edges"."edge_type" in ('supersedes', 'updates', 'extends', 'derives'))
);
--> statement-breakpoint
CREATE TABLE "memory_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"memory_id" uuid NOT NULL,
	"session_run_id" uuid,
	"actor" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "memory_events_kind_check" CHECK ("memory_events"."kind" in ('remember', 'capture', 'revise', 'resolve', 'archive'))
);
--> statement-breakpoint
ALTER TABLE "memories" ADD CONSTRAINT "memories_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memories" ADD CONSTRAINT "memories_session_run_id_agent_sessions_id_fk" FOREIGN KEY ("session_run_id") REFERENCES "public"."agent_sessions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_edges" ADD CONSTRAINT "memory_edges_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_edges" ADD CONSTRAINT "memory_edges_from_id_memories_id_fk" FOREIGN KEY ("from_id") REFERENCES "public"."memories"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_edges" ADD CONSTRAINT "memory_edges_to_id_memories_id_fk" FOREIGN KEY ("to_id") REFERENCES "public"."memories"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_events" ADD CONSTRAINT "memory_events_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_events" ADD CONSTRAINT "memory_events_memory_id_memories_id_fk" FOREIGN KEY ("memory_id") REFERENCES "public"."memories"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_events" ADD CONSTRAINT "memory_events_session_run_id_agent_sessions_id_fk" FOREIGN KEY ("session_run_id") REFERENCES "public"."agent_sessions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "memories_current_content_key" ON "memories" USING btree ("user_id","content_hash") WHERE "memories"."valid_to" is null and "memories"."status" = 'active';--> statement-breakpoint
CREATE INDEX "memories_user_created_idx" ON "memories" USING btree ("user_id","created_at","id");--> statement-breakpoint
CREATE INDEX "memories_user_scope_project_idx" ON "memories" USING btree ("user_id","scope","project");--> statement-breakpoint
CREATE INDEX "memories_session_run_idx" ON "memories" USING btree ("session_run_id");--> statement-breakpoint
CREATE INDEX "memories_search_idx" ON "memories" USING gin ("search");--> statement-breakpoint
CREATE INDEX "memories_trigram_idx" ON "memories" USING gin (("topic" || ' ' || "content") gin_trgm_ops);--> statement-breakpoint
CREATE UNIQUE INDEX "memory_edges_pair_type_key" ON "memory_edges" USING btree ("from_id","to_id","edge_type");--> statement-breakpoint
CREATE INDEX "memory_edges_to_idx" ON "memory_edges" USING btree ("to_id");--> statement-breakpoint
CREATE INDEX "memory_events_run_idx" ON "memory_events" USING btree ("session_run_id","id");--> statement-breakpoint
CREATE INDEX "memory_events_memory_idx" ON "memory_events" USING btree ("memory_id");