-- amem_unindex_memory: the memories update trigger that takes a memory out of its tenant's search
-- statistics of current memories when it stops being current (superseded by a revision: valid_to
-- set; archived), so that the N, average lengths and df a search of current memories ranks with
-- describe those memories: a memory revised ten times would otherwise count its words eleven times
-- and make them look common, and the memory kept up to date would be the hardest to find. It adds
-- a `removed` memory_search_pending row with the lengths its insert row had (amem_memory_postings'
-- null-term row, of the row as it was: OLD, so a later change of the generated document cannot
-- make the two differ); the fold adds it to the `removed…` figures, and a search counts it while it is
-- pending, so the statistics stay exact in any snapshot. Its postings stay: a `current: false`
-- search still finds the memory, and ranks with the statistics of every memory. No memory becomes
-- current again.
CREATE OR REPLACE FUNCTION amem_unindex_memory() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO memory_search_pending (user_id, memory_id, topic_length, content_length, removed)
  SELECT NEW.user_id, NEW.id, p.topic_length, p.content_length, true
  FROM amem_memory_postings(OLD.search, NULL, NULL, NULL) p
  WHERE p.term IS NULL
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS memories_search_unindex ON memories;
CREATE TRIGGER memories_search_unindex AFTER UPDATE OF valid_to, status ON memories
  FOR EACH ROW
  WHEN (OLD.valid_to IS NULL AND OLD.status = 'active' AND (NEW.valid_to IS NOT NULL OR NEW.status <> 'active'))
  EXECUTE FUNCTION amem_unindex_memory();

-- amem_index_memory: the memories insert trigger that writes the search index (README "Search"),
-- once per statement over the inserted rows (a transition table), so a bulk insert or COPY is
-- indexed set-based: each memory's postings (amem_memory_postings: one memory_terms row per stemmed
-- term) and its memory_search_pending row, which the workers' fold (amem_fold_search_stats) adds to
-- the tenant's statistics. Every insert path (capture, revise, bulk COPY) is indexed the same way,
-- in the inserting transaction. No shared row is written, so concurrent writes of one tenant never
-- wait on each other here. Impacts use the tenant's statistics as of the last fold. A memory
-- inserted no longer current (a bulk load of history) also gets its `removed` row, as
-- amem_unindex_memory writes when a memory stops being current: the backfill does the same.
CREATE OR REPLACE FUNCTION amem_index_memory() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH entries AS MATERIALIZED (
    SELECT n.id, n.user_id, p.term, p.topic_tf, p.content_tf, p.topic_length, p.content_length, p.impact,
      (n.valid_to IS NULL AND n.status = 'active') AS current
    FROM amem_inserted_memories n
    LEFT JOIN memory_search_stats s ON s.user_id = n.user_id
    CROSS JOIN LATERAL amem_memory_postings(n.search, s.documents, s.topic_length, s.content_length) p
  ), postings AS (
    INSERT INTO memory_terms (memory_id, user_id, term, topic_tf, content_tf, topic_length, content_length, impact)
    SELECT e.id, e.user_id, e.term, e.topic_tf, e.content_tf, e.topic_length, e.content_length, e.impact
    FROM entries e WHERE e.term IS NOT NULL
  )
  INSERT INTO memory_search_pending (user_id, memory_id, topic_length, content_length, removed)
  SELECT e.user_id, e.id, e.topic_length, e.content_length, r.removed
  FROM entries e CROSS JOIN (VALUES (false), (true)) r(removed)
  WHERE e.term IS NULL AND (NOT r.removed OR NOT e.current);
  RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS memories_search_index ON memories;
CREATE TRIGGER memories_search_index AFTER INSERT ON memories
  REFERENCING NEW TABLE AS amem_inserted_memories
  FOR EACH STATEMENT EXECUTE FUNCTION amem_index_memory();

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
    FROM taken k JOIN memory_terms t ON t.memory_id = k.memory_id
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

-- amem_index_memories: indexes, set-based, the tenant's memories that the search index does not
-- hold yet (neither postings nor a pending row) — what the insert trigger (amem_index_memory) does
-- for the rows it inserts, with the same amem_memory_postings, for memories written while it was
-- not firing: the migration that introduced the index (existing memories) and bulk loads with
-- triggers off. Returns how many memories it indexed; they are pending until the next fold. A
-- memory that is no longer current also gets its `removed` row, as amem_unindex_memory would have
-- written when it stopped being current: the statistics count current memories only.
CREATE OR REPLACE FUNCTION amem_index_memories(p_user uuid) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  v_indexed int;
BEGIN
  WITH entries AS MATERIALIZED (
    SELECT m.id, p.term, p.topic_tf, p.content_tf, p.topic_length, p.content_length, p.impact,
      (m.valid_to IS NULL AND m.status = 'active') AS current
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
  ), pending AS (
    INSERT INTO memory_search_pending (user_id, memory_id, topic_length, content_length, removed)
    SELECT p_user, e.id, e.topic_length, e.content_length, r.removed
    FROM entries e CROSS JOIN (VALUES (false), (true)) r(removed)
    WHERE e.term IS NULL AND (NOT r.removed OR NOT e.current)
    RETURNING removed
  )
  SELECT count(*) FILTER (WHERE NOT removed) INTO v_indexed FROM pending;
  RETURN v_indexed;
END
$$;

-- The memories that stopped being current before this migration: each indexed one gets the
-- `removed` row amem_unindex_memory would have written, and the workers' next folds count them.
-- (A memory with no term that was already folded cannot be told from one never indexed, so it stays
-- counted as current: one memory in N, no term.)
INSERT INTO memory_search_pending (user_id, memory_id, topic_length, content_length, removed)
SELECT m.user_id, m.id, p.topic_length, p.content_length, true
FROM memories m
CROSS JOIN LATERAL amem_memory_postings(m.search, NULL, NULL, NULL) p
WHERE p.term IS NULL
  AND NOT (m.valid_to IS NULL AND m.status = 'active')
  AND (EXISTS (SELECT 1 FROM memory_terms t WHERE t.memory_id = m.id)
       OR EXISTS (SELECT 1 FROM memory_search_pending q WHERE q.user_id = m.user_id AND q.memory_id = m.id))
ON CONFLICT DO NOTHING;
