-- Indexes the memories written before the search index existed (amem_index_memories, tenant by
-- tenant), then folds them into the statistics. Erased accounts' memories hold no text and are not
-- indexed.
SELECT amem_index_memories(u.id) FROM users u WHERE u.state = 'active';
--> statement-breakpoint
SELECT amem_fold_search_stats(2147483647);
