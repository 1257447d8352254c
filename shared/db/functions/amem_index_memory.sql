-- amem_index_memory: the memories insert trigger that writes the search index (README "Search"),
-- once per statement over the inserted rows (a transition table), so a bulk insert or COPY is
-- indexed set-based: one memory_terms row per stemmed term of each stored document (memories.search:
-- amem_search_terms of the topic, weighted A, and of the content, weighted B) with its frequency in
-- each field and the memory's field lengths, and one memory_search_pending row per memory that the
-- workers' fold (amem_fold_search_stats) adds to the tenant's statistics. Every insert path
-- (capture, revise, bulk COPY) is indexed the same way, in the inserting transaction. No shared row
-- is written, so concurrent writes of one tenant never wait on each other here.
-- The impact uses the tenant's average lengths as of the last fold, smoothed towards 6 topic and
-- 40 content terms by 8 notional memories so a young tenant's first memories don't set the scale.
CREATE OR REPLACE FUNCTION amem_index_memory() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH docs AS (
    SELECT n.id, n.user_id, n.search, l.topic_length, l.content_length,
           (coalesce(s.topic_length, 0) + 6.0 * 8) / (coalesce(s.documents, 0) + 8) AS avg_topic,
           (coalesce(s.content_length, 0) + 40.0 * 8) / (coalesce(s.documents, 0) + 8) AS avg_content
    FROM amem_inserted_memories n
    LEFT JOIN memory_search_stats s ON s.user_id = n.user_id
    CROSS JOIN LATERAL (
      SELECT count(*) FILTER (WHERE w = 'A') AS topic_length, count(*) FILTER (WHERE w = 'B') AS content_length
      FROM unnest(n.search) x, unnest(x.weights) w
    ) l
  ), postings AS (
    INSERT INTO memory_terms (memory_id, user_id, term, topic_tf, content_tf, topic_length, content_length, impact)
    SELECT d.id, d.user_id, f.lexeme, f.topic_tf, f.content_tf, least(d.topic_length, 32767), least(d.content_length, 32767),
           amem_search_saturation(f.topic_tf, f.content_tf, d.topic_length, d.content_length, d.avg_topic, d.avg_content)
    FROM docs d
    CROSS JOIN LATERAL (
      SELECT x.lexeme, count(*) FILTER (WHERE w = 'A') AS topic_tf, count(*) FILTER (WHERE w = 'B') AS content_tf
      FROM unnest(d.search) x, unnest(x.weights) w
      GROUP BY x.lexeme
    ) f
  )
  INSERT INTO memory_search_pending (user_id, memory_id, topic_length, content_length)
  SELECT d.user_id, d.id, d.topic_length, d.content_length FROM docs d;
  RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS memories_search_index ON memories;
CREATE TRIGGER memories_search_index AFTER INSERT ON memories
  REFERENCING NEW TABLE AS amem_inserted_memories
  FOR EACH STATEMENT EXECUTE FUNCTION amem_index_memory();
