-- Indexes the memories written before the search index existed, as the insert trigger
-- (amem_index_memory) would have, then folds them into the statistics. Erased accounts' memories
-- hold no text and are not indexed. Impacts use the trigger's prior average lengths (6 topic and 40
-- content terms): they only order each term's postings; scores use the folded statistics.
CREATE TEMPORARY TABLE search_backfill ON COMMIT DROP AS
SELECT m.id, m.user_id, setweight(amem_search_terms(m.topic), 'A') || setweight(amem_search_terms(m.content), 'B') AS terms
FROM memories m
JOIN users u ON u.id = m.user_id AND u.state = 'active'
WHERE NOT EXISTS (SELECT 1 FROM memory_search_pending p WHERE p.memory_id = m.id)
  AND NOT EXISTS (SELECT 1 FROM memory_terms t WHERE t.memory_id = m.id);
--> statement-breakpoint
INSERT INTO memory_terms (memory_id, user_id, term, topic_tf, content_tf, topic_length, content_length, impact)
SELECT b.id, b.user_id, f.lexeme, f.topic_tf, f.content_tf, least(l.topic_length, 32767), least(l.content_length, 32767),
       amem_search_saturation(f.topic_tf, f.content_tf, l.topic_length, l.content_length, 6, 40)
FROM search_backfill b
CROSS JOIN LATERAL (
  SELECT count(*) FILTER (WHERE w = 'A') AS topic_length, count(*) FILTER (WHERE w = 'B') AS content_length
  FROM unnest(b.terms) x, unnest(x.weights) w
) l
CROSS JOIN LATERAL (
  SELECT x.lexeme, count(*) FILTER (WHERE w = 'A') AS topic_tf, count(*) FILTER (WHERE w = 'B') AS content_tf
  FROM unnest(b.terms) x, unnest(x.weights) w
  GROUP BY x.lexeme
) f;
--> statement-breakpoint
INSERT INTO memory_search_pending (user_id, memory_id, topic_length, content_length)
SELECT b.user_id, b.id, l.topic_length, l.content_length
FROM search_backfill b
CROSS JOIN LATERAL (
  SELECT count(*) FILTER (WHERE w = 'A') AS topic_length, count(*) FILTER (WHERE w = 'B') AS content_length
  FROM unnest(b.terms) x, unnest(x.weights) w
) l;
--> statement-breakpoint
SELECT amem_fold_search_stats(2147483647);
