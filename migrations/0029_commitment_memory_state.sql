DROP INDEX "memories_briefing_commitment_idx";--> statement-breakpoint
DROP INDEX "commitments_pending_due_idx";--> statement-breakpoint
ALTER TABLE "commitments" ADD COLUMN "memory_current" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "commitments" ADD COLUMN "memory_scope" text;--> statement-breakpoint
ALTER TABLE "commitments" ADD COLUMN "memory_project" text;--> statement-breakpoint
CREATE INDEX "commitments_briefing_idx" ON "commitments" USING btree ("user_id","due_at","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST,"memory_id","status") WHERE "commitments"."status" in ('open', 'waiting') and "commitments"."memory_current";--> statement-breakpoint
CREATE INDEX "commitments_briefing_scope_idx" ON "commitments" USING btree ("user_id","memory_scope","due_at","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST,"memory_id","status") WHERE "commitments"."status" in ('open', 'waiting') and "commitments"."memory_current";--> statement-breakpoint
CREATE INDEX "commitments_briefing_project_idx" ON "commitments" USING btree ("user_id",coalesce("memory_project", ''),"due_at","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST,"memory_id","status","memory_scope","memory_project") WHERE "commitments"."status" in ('open', 'waiting') and "commitments"."memory_current";