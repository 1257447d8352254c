-- amem_memory_postings: what the search index holds for one memory (docs/decisions/search.md), the
-- one definition that the insert trigger (amem_index_memory) and the backfill (amem_index_memories)
-- both write, so the two can never index a memory differently. One row per stemmed term of the
-- memory's document (memories.search: amem_search_terms of the topic, weighted A, and of the
-- content, weighted B) with its frequency in each field, the memory's field lengths (clamped to
-- memory_terms' smallint) and the posting's impact (amem_search_saturation): a memory_terms row.
-- Plus one row whose term is null that carries the memory's field lengths unclamped: its
-- memory_search_pending row, there even when the document holds no term (it still counts as a
-- memory in the tenant's statistics).
-- The impact uses the tenant's average lengths as of the last fold (p_documents, p_topic_length,
-- p_content_length: its memory_search_stats row, null before the first fold), smoothed towards 6
-- topic and 40 content terms by 8 notional memories so a young tenant's first memories don't set
-- the scale.
-- Each posting also carries the term's first position in the document (`first_position`: the
-- topic's positions, then the content's after them, as `search` holds them), so the ranking can
-- tell a memory holding a question's words side by side from one holding them far apart
-- (search-ranking.ts: proximity) from the postings it reads anyway.
-- One SELECT, LANGUAGE sql, IMMUTABLE and not STRICT: Postgres inlines the call into the statement
-- that indexes many memories at once (a bulk insert's trigger, the backfill), as it would the
-- query written out there.
-- (Its result gained a column: a function's result type cannot be replaced, so it is dropped first.)
DROP FUNCTION IF EXISTS amem_memory_postings(tsvector, bigint, bigint, bigint);
CREATE OR REPLACE FUNCTION amem_memory_postings(
  p_search tsvector, p_documents bigint, p_topic_length bigint, p_content_length bigint
) RETURNS TABLE (
  term text, topic_tf int, content_tf int, topic_length int, content_length int, impact float8, first_position int
)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT f.term, f.topic_tf, f.content_tf, f.topic_length, f.content_length,
         amem_search_saturation(f.topic_tf, f.content_tf, l.topic_length, l.content_length,
           (coalesce(p_topic_length, 0) + 6.0 * 8) / (coalesce(p_documents, 0) + 8),
           (coalesce(p_content_length, 0) + 40.0 * 8) / (coalesce(p_documents, 0) + 8)),
         f.first_position
  FROM (
    SELECT count(*) FILTER (WHERE w = 'A')::int AS topic_length, count(*) FILTER (WHERE w = 'B')::int AS content_length
    FROM unnest(p_search) x, unnest(x.weights) w
  ) l
  CROSS JOIN LATERAL (
    SELECT NULL::text, 0, 0, l.topic_length, l.content_length, NULL::int
    UNION ALL
    SELECT x.lexeme, (count(*) FILTER (WHERE w = 'A'))::int, (count(*) FILTER (WHERE w = 'B'))::int,
           least(l.topic_length, 32767), least(l.content_length, 32767), min(x.positions[1])::int
    FROM unnest(p_search) x, unnest(x.weights) w
    GROUP BY x.lexeme
  ) f(term, topic_tf, content_tf, topic_length, content_length, first_position)
$$;
