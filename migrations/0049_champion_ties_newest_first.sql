-- The champion index with equal impacts newest first, as the search ranking breaks ties (docs/decisions/search.md,
-- "Cost follows the page"): read oldest first, a list of more equal matches than its depth held the oldest, and the
-- newest were on no page. Built without CONCURRENTLY, like the other indexes here: 33 s for 27 million postings
-- (10^6 memories) on the 2-core bench box, during which memory writes wait.
DROP INDEX "memory_terms_champion_idx";--> statement-breakpoint
CREATE INDEX "memory_terms_champion_idx" ON "memory_terms" USING btree ("user_id","term","impact" DESC NULLS LAST,"memory_id" DESC NULLS LAST,"topic_tf","content_tf","topic_length","content_length");