-- amem_fold_search_stats: moves up to p_limit memories from memory_search_pending into their
-- tenants' statistics (memory_search_stats: memory count and summed field lengths;
-- memory_term_stats: document frequency per term; memory_activity: memories written per UTC day and
-- type, the console's Overview chart) in one transaction, so a search that reads the
-- statistics plus what is still pending sees exact figures in any snapshot. Returns how many
-- memories it folded. One fold runs at a time (a transaction-scoped advisory lock): two folds would
-- upsert the same statistics rows and could deadlock; a second caller returns 0 at once.
CREATE OR REPLACE FUNCTION amem_fold_search_stats(p_limit int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  v_users uuid[];
  v_memories uuid[];
  v_folded int;
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtext('amem_fold_search_stats')) THEN
    RETURN 0;
  END IF;
  -- The batch's keys first, into arrays: as a subquery of the DELETE, the planner may re-run the
  -- locking subquery for every pending row (seen: a semi join over 520k rows, minutes per batch).
  SELECT array_agg(q.user_id), array_agg(q.memory_id) INTO v_users, v_memories
  FROM (SELECT user_id, memory_id FROM memory_search_pending LIMIT p_limit FOR UPDATE SKIP LOCKED) q;
  IF v_memories IS NULL THEN
    RETURN 0;
  END IF;
  WITH taken AS (
    DELETE FROM memory_search_pending p
    USING unnest(v_users, v_memories) k(user_id, memory_id)
    WHERE p.user_id = k.user_id AND p.memory_id = k.memory_id
    RETURNING p.user_id, p.memory_id, p.topic_length, p.content_length
  ), documents AS (
    INSERT INTO memory_search_stats AS s (user_id, documents, topic_length, content_length)
    SELECT k.user_id, count(*), sum(k.topic_length), sum(k.content_length) FROM taken k GROUP BY k.user_id
    ON CONFLICT (user_id) DO UPDATE
      SET documents = s.documents + excluded.documents,
          topic_length = s.topic_length + excluded.topic_length,
          content_length = s.content_length + excluded.content_length
  ), terms AS (
    INSERT INTO memory_term_stats AS s (user_id, term, df)
    SELECT t.user_id, t.term, count(*) FROM taken k JOIN memory_terms t ON t.memory_id = k.memory_id
    GROUP BY t.user_id, t.term
    ON CONFLICT (user_id, term) DO UPDATE SET df = s.df + excluded.df
  ), activity AS (
    -- Erasure rewrites a memory's text but keeps its row, so the join always finds it.
    INSERT INTO memory_activity AS a (user_id, day, memory_type, written)
    SELECT k.user_id, (m.created_at AT TIME ZONE 'UTC')::date, m.memory_type, count(*)
    FROM taken k JOIN memories m ON m.id = k.memory_id
    GROUP BY 1, 2, 3
    ON CONFLICT (user_id, day, memory_type) DO UPDATE SET written = a.written + excluded.written
  )
  SELECT count(*) INTO v_folded FROM taken;
  RETURN v_folded;
END
$$;
