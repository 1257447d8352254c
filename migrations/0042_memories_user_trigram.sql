-- The consolidate probes' trigram index with the tenant leading (btree_gin, migration 0016): a probe reads its own
-- tenant's entries instead of every tenant's (docs/decisions/consolidation.md). Built without CONCURRENTLY, like the
-- other indexes here: about 45 s for 1.1 million memories, during which memory writes wait.
DROP INDEX "memories_trigram_idx";--> statement-breakpoint
CREATE INDEX "memories_trigram_idx" ON "memories" USING gin ("user_id",("topic" || ' ' || "content") gin_trgm_ops);