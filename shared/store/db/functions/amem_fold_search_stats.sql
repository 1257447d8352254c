-- amem_fold_search_stats: moves up to p_limit memories from memory_search_pending into their
-- tenants' statistics (memory_search_stats: memory count and summed field lengths;
-- memory_term_stats: document frequency per term; memory_activity: memories written per UTC day and
-- type, the console's Overview chart) in one transaction, so a search that reads the
-- statistics plus what is still pending sees exact figures in any snapshot. Returns how many
-- memories it folded. One fold runs at a time (a transaction-scoped advisory lock): two folds would
-- upsert the same statistics rows and could deadlock; a second caller returns 0 at once.
-- A `removed` row (amem_unindex_memory: the memory stopped being current) is counted in the
-- `removed…` figures, which a search of current memories subtracts; memory_activity counts
-- memories written, so only the others go there.
CREATE OR REPLACE FUNCTION amem_fold_search_stats(p_limit int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  v_users uuid[];
  v_memories uuid[];
  v_removed boolean[];
  v_folded int;
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtext('amem_fold_search_stats')) THEN
    RETURN 0;
  END IF;
  -- The batch's keys first, into arrays: as a subquery of the DELETE, the planner may re-run the
  -- locking subquery for every pending row (seen: a semi join over 520k rows, minutes per batch).
  SELECT array_agg(q.user_id), array_agg(q.memory_id), array_agg(q.removed) INTO v_users, v_memories, v_removed
  FROM (SELECT user_id, memory_id, removed FROM memory_search_pending LIMIT p_limit FOR UPDATE SKIP LOCKED) q;
  IF v_memories IS NULL THEN
    RETURN 0;
  END IF;
  WITH taken AS (
    DELETE FROM memory_search_pending p
    USING unnest(v_users, v_memories, v_removed) k(user_id, memory_id, removed)
    WHERE p.user_id = k.user_id AND p.memory_id = k.memory_id AND p.removed = k.removed
    RETURNING p.user_id, p.memory_id, p.topic_length, p.content_length, p.removed
  ), documents AS (
    INSERT INTO memory_search_stats AS s (user_id, documents, topic_length, content_length,
      removed_documents, removed_topic_length, removed_content_length)
    SELECT k.user_id,
      count(*) FILTER (WHERE NOT k.removed), coalesce(sum(k.topic_length) FILTER (WHERE NOT k.removed), 0),
      coalesce(sum(k.content_length) FILTER (WHERE NOT k.removed), 0),
      count(*) FILTER (WHERE k.removed), coalesce(sum(k.topic_length) FILTER (WHERE k.removed), 0),
      coalesce(sum(k.content_length) FILTER (WHERE k.removed), 0)
    FROM taken k GROUP BY k.user_id
    ON CONFLICT (user_id) DO UPDATE
      SET documents = s.documents + excluded.documents,
          topic_length = s.topic_length + excluded.topic_length,
          content_length = s.content_length + excluded.content_length,
          removed_documents = s.removed_documents + excluded.removed_documents,
          removed_topic_length = s.removed_topic_length + excluded.removed_topic_length,
          removed_content_length = s.removed_content_length + excluded.removed_content_length
  ), terms AS (
    INSERT INTO memory_term_stats AS s (user_id, term, df, removed_df)
    SELECT t.user_id, t.term, count(*) FILTER (WHERE NOT k.removed), count(*) FILTER (WHERE k.removed)
    -- Each taken memory's postings by their primary key (the lateral with OFFSET 0 keeps the probe a
    -- nested loop). As a join, the planner's rows-per-memory comes from memory_terms' statistics,
    -- which block sampling reads badly (a memory's postings share a page) and which are absent until
    -- the table is first analyzed: then it merge-joins the whole primary key, every fold reading every
    -- posting (seen: 3 s per fold of 100 memories over 11 million postings).
    FROM taken k CROSS JOIN LATERAL (
      SELECT p.user_id, p.term FROM memory_terms p WHERE p.memory_id = k.memory_id OFFSET 0
    ) t
    GROUP BY t.user_id, t.term
    ON CONFLICT (user_id, term) DO UPDATE SET df = s.df + excluded.df, removed_df = s.removed_df + excluded.removed_df
  ), activity AS (
    -- Erasure rewrites a memory's text but keeps its row, so the join always finds it.
    INSERT INTO memory_activity AS a (user_id, day, memory_type, written)
    SELECT k.user_id, (m.created_at AT TIME ZONE 'UTC')::date, m.memory_type, count(*)
    FROM taken k JOIN memories m ON m.id = k.memory_id
    WHERE NOT k.removed
    GROUP BY 1, 2, 3
    ON CONFLICT (user_id, day, memory_type) DO UPDATE SET written = a.written + excluded.written
  )
  SELECT count(*) INTO v_folded FROM taken;
  RETURN v_folded;
END
$$;
