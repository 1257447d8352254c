-- Every pending migration runs in one transaction. Locks first, in the order writes take them
-- (memories, then its trigger's search tables) and searches read them (the statistics, the pending
-- rows, the term statistics), so a write or a search running meanwhile waits instead of deadlocking
-- with the ALTERs below and 0044's trigger and backfill.
LOCK TABLE memories IN SHARE ROW EXCLUSIVE MODE;--> statement-breakpoint
LOCK TABLE memory_search_stats, memory_search_pending, memory_term_stats IN ACCESS EXCLUSIVE MODE;--> statement-breakpoint
ALTER TABLE "memory_search_pending" ADD COLUMN "removed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "memory_search_stats" ADD COLUMN "removed_documents" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "memory_search_stats" ADD COLUMN "removed_topic_length" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "memory_search_stats" ADD COLUMN "removed_content_length" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "memory_term_stats" ADD COLUMN "removed_df" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "memory_search_pending" DROP CONSTRAINT "memory_search_pending_pkey";
--> statement-breakpoint
ALTER TABLE "memory_search_pending" ADD CONSTRAINT "memory_search_pending_pkey" PRIMARY KEY("user_id","memory_id","removed");