-- amem_index_memories: indexes, set-based, the tenant's memories that the search index does not
-- hold yet (neither postings nor a pending row) — what the insert trigger (amem_index_memory) does
-- for the rows it inserts, with the same amem_memory_postings, for memories written while it was
-- not firing: the migration that introduced the index (existing memories) and bulk loads with
-- triggers off. Returns how many memories it indexed; they are pending until the next fold.
CREATE OR REPLACE FUNCTION amem_index_memories(p_user uuid) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  v_indexed int;
BEGIN
  WITH entries AS MATERIALIZED (
    SELECT m.id, p.term, p.topic_tf, p.content_tf, p.topic_length, p.content_length, p.impact
    FROM memories m
    LEFT JOIN memory_search_stats s ON s.user_id = m.user_id
    CROSS JOIN LATERAL amem_memory_postings(m.search, s.documents, s.topic_length, s.content_length) p
    WHERE m.user_id = p_user
      AND NOT EXISTS (SELECT 1 FROM memory_terms t WHERE t.memory_id = m.id)
      AND NOT EXISTS (SELECT 1 FROM memory_search_pending q WHERE q.user_id = p_user AND q.memory_id = m.id)
  ), postings AS (
    INSERT INTO memory_terms (memory_id, user_id, term, topic_tf, content_tf, topic_length, content_length, impact)
    SELECT e.id, p_user, e.term, e.topic_tf, e.content_tf, e.topic_length, e.content_length, e.impact
    FROM entries e WHERE e.term IS NOT NULL
  )
  INSERT INTO memory_search_pending (user_id, memory_id, topic_length, content_length)
  SELECT p_user, e.id, e.topic_length, e.content_length FROM entries e WHERE e.term IS NULL;
  GET DIAGNOSTICS v_indexed = ROW_COUNT;
  RETURN v_indexed;
END
$$;
