ALTER TABLE "memory_search_pending" ADD COLUMN "removed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "memory_search_stats" ADD COLUMN "removed_documents" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "memory_search_stats" ADD COLUMN "removed_topic_length" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "memory_search_stats" ADD COLUMN "removed_content_length" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "memory_term_stats" ADD COLUMN "removed_df" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "memory_search_pending" DROP CONSTRAINT "memory_search_pending_pkey";
--> statement-breakpoint
ALTER TABLE "memory_search_pending" ADD CONSTRAINT "memory_search_pending_pkey" PRIMARY KEY("user_id","memory_id","removed");