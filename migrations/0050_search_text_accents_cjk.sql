-- Accents folded and Chinese/Japanese read by pairs of characters in every search document and
-- query (amem_search_text). unaccent ships with Postgres's contrib and is offered by the managed
-- services, as pg_trgm and btree_gin are. The memories whose document changes (only texts with
-- characters outside ASCII can) are read again with their statistics kept exact
-- (amem_reindex_memories); the others keep theirs.
CREATE EXTENSION IF NOT EXISTS unaccent WITH SCHEMA public;
--> statement-breakpoint
-- Memory writes wait until the migration commits: a memory inserted meanwhile by a process still
-- running would be read with the old function (not visible to it before the commit) and be missed
-- by the reindex below, its document read the old way for good.
LOCK TABLE memories IN SHARE MODE;
--> statement-breakpoint
-- amem_search_text: a text as the search index reads it, before Postgres's English configuration
-- (amem_search_terms; README "Search"): '.', '/' and '\' read as spaces, so file names, hosts,
-- paths and dotted identifiers match by their parts; accents folded (unaccent: "cafe" finds
-- "café", "Grosse" finds "Größe"), as people type words without them; and each run of Chinese or
-- Japanese characters (CJK ideographs, kana), which the parser would keep as one token however
-- long — a whole sentence — read as its overlapping pairs of characters ("数据库连接" → "数据 据库
-- 库连 连接"), so a word of it finds it: the bigram indexing of CJK search engines, with no
-- dictionary. A run of one character stays itself. Phrases and exclusions read their text through
-- it too, so the pairs of a quoted word follow each other as they do in the stored document.
-- PL/pgSQL, not SQL: unaccent is STABLE, so a SQL body could not be inlined and ran as a function
-- call of its own, three times the cost (measured: ~55 against ~17 µs a call); ASCII text, most of
-- it, only has its names split.
CREATE OR REPLACE FUNCTION amem_search_text(p_text text) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  v_text text;
BEGIN
  IF p_text !~ '[^\x01-\x7f]' THEN
    RETURN translate(p_text, './\', '   ');
  END IF;
  v_text := public.unaccent('public.unaccent'::regdictionary, translate(p_text, './\', '   '));
  IF v_text !~ '[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]' THEN
    RETURN v_text;
  END IF;
  RETURN (
    SELECT string_agg(
      CASE
        WHEN r.m[1] !~ '^[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]' THEN r.m[1]
        WHEN length(r.m[1]) = 1 THEN r.m[1]
        ELSE (SELECT string_agg(substr(r.m[1], i, 2), ' ' ORDER BY i) FROM generate_series(1, length(r.m[1]) - 1) i)
      END, ' ' ORDER BY r.n)
    FROM regexp_matches(v_text,
      '[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]+|[^\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]+',
      'g') WITH ORDINALITY r(m, n)
  );
END
$$;
--> statement-breakpoint
-- amem_search_terms: the stemmed terms of a text as search indexes and queries read it (README
-- "Search"): Postgres's English configuration (stop and question words dropped, Snowball stems)
-- over the text as amem_search_text reads it (names split at '.', '/' and '\', accents folded,
-- Chinese and Japanese read by pairs of characters).
CREATE OR REPLACE FUNCTION amem_search_terms(p_text text) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT to_tsvector('english'::regconfig, amem_search_text(p_text))
$$;
--> statement-breakpoint
-- amem_reindex_memories: reads these memories again with the current amem_search_terms — for a
-- change of how text is read (a migration), since `memories.search` is computed when a row is
-- written — and keeps the tenants' search statistics exact: each memory's postings are replaced by
-- what amem_memory_postings gives for its new document, its pending rows take its new lengths, and
-- what the fold already counted for it (the written part unless its pending row is still there;
-- for a memory no longer current, the `removed…` part unless its removed row is still there) moves
-- by the difference of terms and lengths. The fold's advisory lock is held to the end, so no fold
-- runs in between; the memories are locked. Returns how many memories it read again.
CREATE OR REPLACE FUNCTION amem_reindex_memories(p_ids uuid[]) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  v_count int;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('amem_fold_search_stats'));
  CREATE TEMP TABLE amem_reindexed ON COMMIT DROP AS
  SELECT m.id, m.user_id, (m.valid_to IS NULL AND m.status = 'active') AS current,
    l.topic_length AS old_topic, l.content_length AS old_content,
    NOT EXISTS (SELECT 1 FROM memory_search_pending q WHERE q.user_id = m.user_id AND q.memory_id = m.id AND NOT q.removed)
      AS written_folded,
    (m.valid_to IS NOT NULL OR m.status <> 'active')
      AND NOT EXISTS (SELECT 1 FROM memory_search_pending q WHERE q.user_id = m.user_id AND q.memory_id = m.id AND q.removed)
      AS removed_folded,
    0::bigint AS new_topic, 0::bigint AS new_content
  FROM (SELECT * FROM memories WHERE id = ANY(p_ids) FOR UPDATE) m
  CROSS JOIN LATERAL amem_memory_postings(m.search, NULL, NULL, NULL) l
  WHERE l.term IS NULL;
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
  INSERT INTO memory_terms (memory_id, user_id, term, topic_tf, content_tf, topic_length, content_length, impact)
  SELECT e.id, e.user_id, e.term, e.topic_tf, e.content_tf, e.topic_length, e.content_length, e.impact
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
--> statement-breakpoint
SELECT amem_reindex_memories(coalesce(array_agg(id), '{}')) FROM memories
WHERE (topic || content) ~ '[^\x01-\x7f]'
  AND (setweight(amem_search_terms(topic), 'A') || setweight(amem_search_terms(content), 'B')) IS DISTINCT FROM search;
