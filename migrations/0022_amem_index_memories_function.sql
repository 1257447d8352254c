-- amem_index_memories: indexes, set-based, the tenant's memories that the search index does not
-- hold yet (neither postings nor a pending row) — what the insert trigger (amem_index_memory) does
-- row by row, for memories written while it was not firing: the migration that introduced the index
-- (existing memories) and bulk loads with triggers off (the benchmarks' COPY seeding). Returns how
-- many memories it indexed; they are pending until the next fold. Impacts use the trigger's prior
-- average lengths when the tenant has no folded statistics yet.
CREATE OR REPLACE FUNCTION amem_index_memories(p_user uuid) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  v_avg_topic float8;
  v_avg_content float8;
  v_indexed int;
BEGIN
  SELECT (coalesce(s.topic_length, 0) + 6.0 * 8) / (coalesce(s.documents, 0) + 8),
         (coalesce(s.content_length, 0) + 40.0 * 8) / (coalesce(s.documents, 0) + 8)
    INTO v_avg_topic, v_avg_content
    FROM (SELECT 1) one LEFT JOIN memory_search_stats s ON s.user_id = p_user;
  CREATE TEMPORARY TABLE amem_unindexed ON COMMIT DROP AS
  SELECT m.id, m.search, l.topic_length, l.content_length
  FROM memories m
  CROSS JOIN LATERAL (
    SELECT count(*) FILTER (WHERE w = 'A') AS topic_length, count(*) FILTER (WHERE w = 'B') AS content_length
    FROM unnest(m.search) x, unnest(x.weights) w
  ) l
  WHERE m.user_id = p_user
    AND NOT EXISTS (SELECT 1 FROM memory_terms t WHERE t.memory_id = m.id)
    AND NOT EXISTS (SELECT 1 FROM memory_search_pending p WHERE p.user_id = p_user AND p.memory_id = m.id);
  INSERT INTO memory_terms (memory_id, user_id, term, topic_tf, content_tf, topic_length, content_length, impact)
  SELECT u.id, p_user, f.lexeme, f.topic_tf, f.content_tf, least(u.topic_length, 32767), least(u.content_length, 32767),
         amem_search_saturation(f.topic_tf, f.content_tf, u.topic_length, u.content_length, v_avg_topic, v_avg_content)
  FROM amem_unindexed u
  CROSS JOIN LATERAL (
    SELECT x.lexeme, count(*) FILTER (WHERE w = 'A') AS topic_tf, count(*) FILTER (WHERE w = 'B') AS content_tf
    FROM unnest(u.search) x, unnest(x.weights) w
    GROUP BY x.lexeme
  ) f;
  INSERT INTO memory_search_pending (user_id, memory_id, topic_length, content_length)
  SELECT p_user, u.id, u.topic_length, u.content_length FROM amem_unindexed u;
  GET DIAGNOSTICS v_indexed = ROW_COUNT;
  DROP TABLE amem_unindexed;
  RETURN v_indexed;
END
$$;
