-- amem_search_terms: the stemmed terms of a text as search indexes and queries read it (README
-- "Search"): Postgres's English configuration (stop and question words dropped, Snowball stems)
-- over the text as amem_search_text reads it (names split at '.', '/' and '\', accents folded,
-- Chinese and Japanese read by pairs of characters).
CREATE OR REPLACE FUNCTION amem_search_terms(p_text text) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT to_tsvector('english'::regconfig, amem_search_text(p_text))
$$;
