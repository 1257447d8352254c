-- amem_reindex_memories: reads these memories again with the current amem_search_terms — for a
-- change of how text is read (a migration), since `memories.search` is computed when a row is
-- written — and keeps the tenants' search statistics exact: each memory's postings are replaced by
-- what amem_memory_postings gives for its new document, its pending rows take its new lengths, and
-- what the fold already counted for it (the written part unless its pending row is still there;
-- for a memory no longer current, the `removed…` part unless its removed row is still there) moves
-- by the difference of terms and lengths. The fold's advisory lock is held to the end, so no fold
-- (and no account erasure, which takes it too) runs in between; the memories are locked first, in
-- a statement of their own, so that what the next one reads of their pending rows is what holds
-- once their writers committed: locked in the same statement, a memory archived or revised while
-- it waited came back updated, but its `removed` row, written by that update, was outside the
-- statement's snapshot — counted as folded here and by the fold again (a review saw removed_df
-- −1). Returns how many memories it read again. Only memories of active accounts: an erased one's
-- index is gone, and reading its memories again wrote postings and df with no N beside them (a
-- probe's find, nineteenth session); the erasure takes the fold's lock too, so the state read
-- here holds to the end.
CREATE OR REPLACE FUNCTION amem_reindex_memories(p_ids uuid[]) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  v_count int;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('amem_fold_search_stats'));
  PERFORM 1 FROM memories m JOIN users u ON u.id = m.user_id AND u.state = 'active'
  WHERE m.id = ANY(p_ids) FOR UPDATE OF m;
  CREATE TEMP TABLE amem_reindexed ON COMMIT DROP AS
  SELECT m.id, m.user_id, (m.valid_to IS NULL AND m.status = 'active') AS current,
    l.topic_length AS old_topic, l.content_length AS old_content,
    NOT EXISTS (SELECT 1 FROM memory_search_pending q WHERE q.user_id = m.user_id AND q.memory_id = m.id AND NOT q.removed)
      AS written_folded,
    (m.valid_to IS NOT NULL OR m.status <> 'active')
      AND NOT EXISTS (SELECT 1 FROM memory_search_pending q WHERE q.user_id = m.user_id AND q.memory_id = m.id AND q.removed)
      AS removed_folded,
    0::bigint AS new_topic, 0::bigint AS new_content
  FROM memories m
  JOIN users u ON u.id = m.user_id AND u.state = 'active'
  CROSS JOIN LATERAL amem_memory_postings(m.search, NULL, NULL, NULL) l
  WHERE m.id = ANY(p_ids) AND l.term IS NULL;
  GET DIAGNOSTICS v_count = ROW_COUNT;
  CREATE TEMP TABLE amem_reindexed_terms ON COMMIT DROP AS
  SELECT t.memory_id AS id, t.term, -1 AS delta FROM memory_terms t WHERE t.memory_id IN (SELECT id FROM amem_reindexed);

  -- A stored generated column is computed again whenever its row is updated.
  UPDATE memories m SET topic = m.topic FROM amem_reindexed r WHERE m.id = r.id;
  DELETE FROM memory_terms t USING amem_reindexed r WHERE t.memory_id = r.id;
  WITH entries AS MATERIALIZED (
    SELECT r.id, r.user_id, p.*
    FROM amem_reindexed r
    JOIN memories m ON m.id = r.id
    LEFT JOIN memory_search_stats s ON s.user_id = r.user_id
    CROSS JOIN LATERAL amem_memory_postings(m.search, s.documents, s.topic_length, s.content_length) p
  ), lengths AS (
    UPDATE amem_reindexed r SET new_topic = e.topic_length, new_content = e.content_length
    FROM entries e WHERE e.id = r.id AND e.term IS NULL
  ), added AS (
    INSERT INTO amem_reindexed_terms (id, term, delta) SELECT e.id, e.term, 1 FROM entries e WHERE e.term IS NOT NULL
  )
  INSERT INTO memory_terms (memory_id, user_id, term, topic_tf, content_tf, topic_length, content_length, impact, first_position)
  SELECT e.id, e.user_id, e.term, e.topic_tf, e.content_tf, e.topic_length, e.content_length, e.impact, e.first_position
  FROM entries e WHERE e.term IS NOT NULL;

  UPDATE memory_search_pending q SET topic_length = r.new_topic, content_length = r.new_content
  FROM amem_reindexed r WHERE q.user_id = r.user_id AND q.memory_id = r.id;
  UPDATE memory_search_stats s SET
    topic_length = s.topic_length + d.topic, content_length = s.content_length + d.content,
    removed_topic_length = s.removed_topic_length + d.removed_topic,
    removed_content_length = s.removed_content_length + d.removed_content
  FROM (
    SELECT user_id,
      coalesce(sum(new_topic - old_topic) FILTER (WHERE written_folded), 0) AS topic,
      coalesce(sum(new_content - old_content) FILTER (WHERE written_folded), 0) AS content,
      coalesce(sum(new_topic - old_topic) FILTER (WHERE removed_folded), 0) AS removed_topic,
      coalesce(sum(new_content - old_content) FILTER (WHERE removed_folded), 0) AS removed_content
    FROM amem_reindexed GROUP BY user_id
  ) d
  WHERE s.user_id = d.user_id;
  INSERT INTO memory_term_stats AS s (user_id, term, df, removed_df)
  SELECT r.user_id, t.term,
    coalesce(sum(t.delta) FILTER (WHERE r.written_folded), 0),
    coalesce(sum(t.delta) FILTER (WHERE r.removed_folded), 0)
  FROM amem_reindexed_terms t JOIN amem_reindexed r ON r.id = t.id
  WHERE r.written_folded OR r.removed_folded
  GROUP BY r.user_id, t.term
  ON CONFLICT (user_id, term) DO UPDATE SET df = s.df + excluded.df, removed_df = s.removed_df + excluded.removed_df;

  DROP TABLE amem_reindexed_terms;
  DROP TABLE amem_reindexed;
  RETURN v_count;
END
$$;
