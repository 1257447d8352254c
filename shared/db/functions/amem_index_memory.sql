-- amem_index_memory: the memories insert trigger that writes the search index (README "Search"):
-- one memory_terms row per stemmed term of the stored document (memories.search: amem_search_terms
-- of the topic, weighted A, and of the content, weighted B) with
-- its frequency in each field and the memory's field lengths, and one memory_search_pending row
-- that the workers' fold (amem_fold_search_stats) adds to the tenant's statistics. Every insert
-- path (capture, revise, bulk COPY) is indexed the same way, in the inserting transaction. No
-- shared row is written, so concurrent writes of one tenant never wait on each other here.
-- The impact uses the tenant's average lengths as of the last fold, smoothed towards 6 topic and
-- 40 content terms by 8 notional memories so a young tenant's first memories don't set the scale.
CREATE OR REPLACE FUNCTION amem_index_memory() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_topic_length int;
  v_content_length int;
  v_avg_topic float8;
  v_avg_content float8;
BEGIN
  SELECT coalesce(count(*) FILTER (WHERE w = 'A'), 0), coalesce(count(*) FILTER (WHERE w = 'B'), 0)
    INTO v_topic_length, v_content_length
    FROM unnest(NEW.search) u, unnest(u.weights) w;
  SELECT (coalesce(s.topic_length, 0) + 6.0 * 8) / (coalesce(s.documents, 0) + 8),
         (coalesce(s.content_length, 0) + 40.0 * 8) / (coalesce(s.documents, 0) + 8)
    INTO v_avg_topic, v_avg_content
    FROM (SELECT 1) one LEFT JOIN memory_search_stats s ON s.user_id = NEW.user_id;
  INSERT INTO memory_terms (memory_id, user_id, term, topic_tf, content_tf, topic_length, content_length, impact)
  SELECT NEW.id, NEW.user_id, f.lexeme, f.topic_tf, f.content_tf, least(v_topic_length, 32767),
         least(v_content_length, 32767),
         amem_search_saturation(f.topic_tf, f.content_tf, v_topic_length, v_content_length, v_avg_topic, v_avg_content)
  FROM (SELECT u.lexeme, count(*) FILTER (WHERE w = 'A') AS topic_tf, count(*) FILTER (WHERE w = 'B') AS content_tf
        FROM unnest(NEW.search) u, unnest(u.weights) w
        GROUP BY u.lexeme) f;
  INSERT INTO memory_search_pending (user_id, memory_id, topic_length, content_length)
  VALUES (NEW.user_id, NEW.id, v_topic_length, v_content_length);
  RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS memories_search_index ON memories;
CREATE TRIGGER memories_search_index AFTER INSERT ON memories FOR EACH ROW EXECUTE FUNCTION amem_index_memory();
