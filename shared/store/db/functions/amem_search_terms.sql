-- amem_search_terms: the stemmed terms of a text as search indexes and queries read it (README
-- "Search"): Postgres's English configuration (stop and question words dropped, Snowball stems)
-- over the text with '.', '/' and '\' read as spaces, so file names, hosts, paths and dotted
-- identifiers match by their parts ("fly" finds "Fly.io", "config ts" and "config.ts" find each
-- other), which the default parser would keep as single host or file tokens.
CREATE OR REPLACE FUNCTION amem_search_terms(p_text text) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT to_tsvector('english'::regconfig, translate(p_text, './\', '   '))
$$;
