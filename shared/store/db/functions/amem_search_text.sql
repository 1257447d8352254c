-- amem_search_text: a text as the search index reads it, before Postgres's English configuration
-- (amem_search_terms; README "Search"): '.', '/' and '\' read as spaces, so file names, hosts,
-- paths and dotted identifiers match by their parts; '<' and '>' too, which the parser would take
-- for markup and drop with what they enclose — "<Button>", "Promise<Response>", "</table>", the
-- text coding agents write, indexed none of "button", "response", "table" (a probe's find);
-- accents folded (unaccent: "cafe" finds "café", "Grosse" finds "Größe"), as people type words
-- without them; and each run of Chinese or Japanese characters (CJK ideographs, kana), which the
-- parser would keep as one token however long — a whole sentence — read as its overlapping pairs of
-- characters ("数据库连接" → "数据 据库 库连 连接"), so a word of it finds it: the bigram indexing of CJK search engines, with no
-- dictionary. A run of one character stays itself. And ISO dates read with their month's name
-- (amem_search_dates: "2026-04-23" as "2026 april 23"), only in a text that can hold one: two
-- substring searches decide, as most texts hold none and a regular expression on every text cost
-- ~15 µs a call. Phrases and exclusions read their text through it too, so the pairs of a quoted
-- word follow each other as they do in the stored document.
-- PL/pgSQL, not SQL: unaccent is STABLE, so a SQL body could not be inlined and ran as a function
-- call of its own, three times the cost (measured: ~55 against ~17 µs a call); ASCII text, most of
-- it, only has its names split.
CREATE OR REPLACE FUNCTION amem_search_text(p_text text) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  v_text text;
BEGIN
  IF p_text !~ '[^\x01-\x7f]' THEN
    v_text := translate(p_text, './\<>', '     ');
    IF (strpos(v_text, '-0') > 0 OR strpos(v_text, '-1') > 0) AND v_text ~ '[0-9]{4}-[01][0-9]' THEN
      RETURN amem_search_dates(v_text);
    END IF;
    RETURN v_text;
  END IF;
  -- After unaccent, which folds fullwidth and other forms into these characters (＜Tag＞, «Button»
  -- as <<Button>>, ．, ／): translated before it, they came back and the parser dropped the words
  -- as markup (a review's find).
  v_text := translate(public.unaccent('public.unaccent'::regdictionary, p_text), './\<>', '     ');
  IF (strpos(v_text, '-0') > 0 OR strpos(v_text, '-1') > 0) AND v_text ~ '[0-9]{4}-[01][0-9]' THEN
    v_text := amem_search_dates(v_text);
  END IF;
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
