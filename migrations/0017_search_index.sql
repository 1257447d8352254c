CREATE TABLE "memory_search_pending" (
	"user_id" uuid NOT NULL,
	"memory_id" uuid NOT NULL,
	"topic_length" integer NOT NULL,
	"content_length" integer NOT NULL,
	CONSTRAINT "memory_search_pending_pkey" PRIMARY KEY("user_id","memory_id")
);
--> statement-breakpoint
CREATE TABLE "memory_search_stats" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"documents" bigint NOT NULL,
	"topic_length" bigint NOT NULL,
	"content_length" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "memory_term_stats" (
	"user_id" uuid NOT NULL,
	"term" text NOT NULL,
	"df" integer NOT NULL,
	CONSTRAINT "memory_term_stats_pkey" PRIMARY KEY("user_id","term")
);
--> statement-breakpoint
CREATE TABLE "memory_terms" (
	"memory_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"term" text NOT NULL,
	"topic_tf" smallint NOT NULL,
	"content_tf" smallint NOT NULL,
	"topic_length" smallint NOT NULL,
	"content_length" smallint NOT NULL,
	"impact" real NOT NULL,
	CONSTRAINT "memory_terms_pkey" PRIMARY KEY("memory_id","term")
);
--> statement-breakpoint
DROP INDEX "memories_search_idx";--> statement-breakpoint
CREATE INDEX "memory_term_stats_trigram_idx" ON "memory_term_stats" USING gin ("user_id","term" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "memory_terms_champion_idx" ON "memory_terms" USING btree ("user_id","term","impact" DESC NULLS LAST,"memory_id","topic_tf","content_tf","topic_length","content_length");