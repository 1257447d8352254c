-- amem_index_memories: indexes, set-based, the tenant's memories that the search index does not
-- hold yet (neither postings nor a pending row) — what the insert trigger (amem_index_memory) does
-- for the rows it inserts, with the same amem_memory_postings, for memories written while it was
-- not firing: the migration that introduced the index (existing memories) and bulk loads with
-- triggers off. Returns how many memories it indexed; they are pending until the next fold. A
-- memory that is no longer current also gets its `removed` row, as amem_unindex_memory would have
-- written when it stopped being current: the statistics count current memories only.
--
-- A memory whose document holds no term (all stop words) has no postings, so once its pending row
-- is folded nothing tells it from one never indexed: each run counted it again (a probe's find,
-- nineteenth session: N grew by one per call). Such memories get no pending row here; instead the
-- tenant's document counts are set to what they are — every memory, and every memory no longer
-- current, less those still pending — under the fold's lock, so no fold moves them meanwhile. Only
-- documents are counted this way: a memory without terms adds nothing to the lengths. Nothing is
-- indexed for an account that is not active: an erased one has no index left to complete.
CREATE OR REPLACE FUNCTION amem_index_memories(p_user uuid) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  v_indexed int;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('amem_fold_search_stats'));
  IF NOT EXISTS (SELECT 1 FROM users u WHERE u.id = p_user AND u.state = 'active') THEN
    RETURN 0;
  END IF;
  WITH entries AS MATERIALIZED (
    SELECT m.id, p.term, p.topic_tf, p.content_tf, p.topic_length, p.content_length, p.impact, p.first_position,
      (m.valid_to IS NULL AND m.status = 'active') AS current
    FROM memories m
    LEFT JOIN memory_search_stats s ON s.user_id = m.user_id
    CROSS JOIN LATERAL amem_memory_postings(m.search, s.documents, s.topic_length, s.content_length) p
    WHERE m.user_id = p_user
      AND NOT EXISTS (SELECT 1 FROM memory_terms t WHERE t.memory_id = m.id)
      AND NOT EXISTS (SELECT 1 FROM memory_search_pending q WHERE q.user_id = p_user AND q.memory_id = m.id)
  ), postings AS (
    INSERT INTO memory_terms (memory_id, user_id, term, topic_tf, content_tf, topic_length, content_length, impact, first_position)
    SELECT e.id, p_user, e.term, e.topic_tf, e.content_tf, e.topic_length, e.content_length, e.impact, e.first_position
    FROM entries e WHERE e.term IS NOT NULL
  ), pending AS (
    INSERT INTO memory_search_pending (user_id, memory_id, topic_length, content_length, removed)
    SELECT p_user, e.id, e.topic_length, e.content_length, r.removed
    FROM entries e CROSS JOIN (VALUES (false), (true)) r(removed)
    WHERE e.term IS NULL AND e.topic_length + e.content_length > 0 AND (NOT r.removed OR NOT e.current)
    RETURNING removed
  )
  SELECT count(*) FILTER (WHERE NOT removed) INTO v_indexed FROM pending;
  INSERT INTO memory_search_stats AS s (user_id, documents, topic_length, content_length, removed_documents)
  SELECT p_user,
    (SELECT count(*) FROM memories m WHERE m.user_id = p_user)
      - (SELECT count(*) FROM memory_search_pending q WHERE q.user_id = p_user AND NOT q.removed),
    0, 0,
    (SELECT count(*) FROM memories m WHERE m.user_id = p_user AND (m.valid_to IS NOT NULL OR m.status <> 'active'))
      - (SELECT count(*) FROM memory_search_pending q WHERE q.user_id = p_user AND q.removed)
  ON CONFLICT (user_id) DO UPDATE SET documents = excluded.documents, removed_documents = excluded.removed_documents;
  RETURN v_indexed;
END
$$;
