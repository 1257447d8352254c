-- ISO dates read with their month's name in every search document and query (amem_search_dates,
-- called by amem_search_text): "2026-04-23" reads as "2026 april 23", so "April" finds it. The
-- memories whose document changes are read again with their statistics kept exact
-- (amem_reindex_memories, migration 0050); the others keep theirs. Only a text holding such a date
-- can change, or one outside ASCII: unaccent folds Unicode dashes (U+2010–2014, U+2212, U+FF0D) and
-- full-width digits, which a language model writes in "2026‑04‑23", into one.
-- Memory writes wait until the migration commits: a memory inserted meanwhile by a process still
-- running would be read with the old function (not visible to it before the commit) and be missed
-- by the reindex below, its document read the old way for good.
LOCK TABLE memories IN SHARE MODE;
--> statement-breakpoint
-- amem_search_dates: ISO dates read as people ask for them (amem_search_text; README "Search").
-- Agents write dates as 2026-04-23 and people ask "what did we ship in April?" or "as of late
-- april": each YYYY-MM or YYYY-MM-DD (a year 1900–2099, a month 01–12, a day 01–31) is read as its
-- year, its month's English name and its day without a leading zero — "2026 april 23" — so that
-- "April", "April 23", "April 2026" and the date as written all find it (a query reads its dates the
-- same way). Also inside a name, after "-", "_" or any character but an ASCII letter or digit
-- (backup-2026-04-23.sql, 会议于2026-04-23): the date then stands apart from the name, as it does
-- in a query that asks for it. Not after a letter or digit (v2026-04, 12026-04-01): no date. Only the months the text
-- holds are replaced, one pass each; amem_search_text calls this only for texts that can hold a date.
-- The character before a date is matched and put back, not looked behind: Postgres's lookbehind
-- made a call with four dates ~4× slower (~260 against ~65 µs). ASCII classes, not [:alnum:]:
-- under a UTF-8 locale a kana or ideograph is alphanumeric, and a date glued to Japanese or Chinese
-- text would stay unread in the memory while the same date typed alone in a query is read.
CREATE OR REPLACE FUNCTION amem_search_dates(p_text text) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  v_text text := p_text;
  v_month int;
BEGIN
  FOR v_month IN SELECT DISTINCT m[1]::int FROM regexp_matches(p_text, '(?:19|20)[0-9]{2}-(0[1-9]|1[0-2])', 'g') m LOOP
    v_text := regexp_replace(v_text,
      '(^|[^A-Za-z0-9])((?:19|20)[0-9]{2})-' || lpad(v_month::text, 2, '0') || '(?:-(?:0([1-9])|([12][0-9]|3[01])))?(?![0-9])',
      '\1 \2 ' || (ARRAY['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september',
        'october', 'november', 'december'])[v_month] || ' \3\4 ', 'g');
  END LOOP;
  RETURN v_text;
END
$$;
--> statement-breakpoint
-- amem_search_text: a text as the search index reads it, before Postgres's English configuration
-- (amem_search_terms; README "Search"): '.', '/' and '\' read as spaces, so file names, hosts,
-- paths and dotted identifiers match by their parts; accents folded (unaccent: "cafe" finds
-- "café", "Grosse" finds "Größe"), as people type words without them; and each run of Chinese or
-- Japanese characters (CJK ideographs, kana), which the parser would keep as one token however
-- long — a whole sentence — read as its overlapping pairs of characters ("数据库连接" → "数据 据库
-- 库连 连接"), so a word of it finds it: the bigram indexing of CJK search engines, with no
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
    v_text := translate(p_text, './\', '   ');
    IF (strpos(v_text, '-0') > 0 OR strpos(v_text, '-1') > 0) AND v_text ~ '[0-9]{4}-[01][0-9]' THEN
      RETURN amem_search_dates(v_text);
    END IF;
    RETURN v_text;
  END IF;
  v_text := public.unaccent('public.unaccent'::regdictionary, translate(p_text, './\', '   '));
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
--> statement-breakpoint
SELECT amem_reindex_memories(coalesce(array_agg(id), '{}')) FROM memories
WHERE ((topic || content) ~ '[0-9]{4}-[01][0-9]' OR (topic || content) ~ '[^\x01-\x7f]')
  AND (setweight(amem_search_terms(topic), 'A') || setweight(amem_search_terms(content), 'B')) IS DISTINCT FROM search;
