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
    SELECT n.id, n.user_id, p.term, p.topic_tf, p.content_tf, p.topic_length, p.content_length, p.impact, p.first_position,
      (n.valid_to IS NULL AND n.status = 'active') AS current
    FROM amem_inserted_memories n
    LEFT JOIN memory_search_stats s ON s.user_id = n.user_id
    CROSS JOIN LATERAL amem_memory_postings(n.search, s.documents, s.topic_length, s.content_length) p
  ), postings AS (
    INSERT INTO memory_terms (memory_id, user_id, term, topic_tf, content_tf, topic_length, content_length, impact, first_position)
    SELECT e.id, e.user_id, e.term, e.topic_tf, e.content_tf, e.topic_length, e.content_length, e.impact, e.first_position
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
