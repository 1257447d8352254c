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
