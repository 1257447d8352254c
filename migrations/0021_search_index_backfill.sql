-- Indexes the memories written before the search index existed, as the insert trigger
-- (amem_index_memory) would have, then folds them into the statistics. Erased accounts' memories
-- hold no text and are not indexed. Impacts use the trigger's prior average lengths (6 topic and 40
-- content terms): they only order each term's postings; scores use the folded statistics.
INSERT INTO memory_terms (memory_id, user_id, term, topic_tf, content_tf, topic_length, content_length, impact)
SELECT m.id, m.user_id, f.lexeme, f.topic_tf, f.content_tf, least(l.topic_length, 32767), least(l.content_length, 32767),
       amem_search_saturation(f.topic_tf, f.content_tf, l.topic_length, l.content_length, 6, 40)
FROM memories m
JOIN users u ON u.id = m.user_id AND u.state = 'active'
CROSS JOIN LATERAL (
  SELECT count(*) FILTER (WHERE w = 'A') AS topic_length, count(*) FILTER (WHERE w = 'B') AS content_length
  FROM unnest(m.search) x, unnest(x.weights) w
) l
CROSS JOIN LATERAL (
  SELECT x.lexeme, count(*) FILTER (WHERE w = 'A') AS topic_tf, count(*) FILTER (WHERE w = 'B') AS content_tf
  FROM unnest(m.search) x, unnest(x.weights) w
  GROUP BY x.lexeme
) f
ON CONFLICT DO NOTHING;
--> statement-breakpoint
INSERT INTO memory_search_pending (user_id, memory_id, topic_length, content_length)
SELECT m.user_id, m.id, l.topic_length, l.content_length
FROM memories m
JOIN users u ON u.id = m.user_id AND u.state = 'active'
CROSS JOIN LATERAL (
  SELECT count(*) FILTER (WHERE w = 'A') AS topic_length, count(*) FILTER (WHERE w = 'B') AS content_length
  FROM unnest(m.search) x, unnest(x.weights) w
) l
ON CONFLICT DO NOTHING;
--> statement-breakpoint
SELECT amem_fold_search_stats(2147483647);
