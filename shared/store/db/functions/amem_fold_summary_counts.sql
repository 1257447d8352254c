-- amem_fold_summary_counts: moves up to p_limit rows of summary_count_deltas (oldest first) into
-- summary_counts (counts added, last_at the later of the two) in one transaction, so a summary that
-- reads the counts plus the deltas still there sees exact figures in any snapshot. Returns how many
-- deltas it folded. One fold runs at a time (a transaction-scoped advisory lock), as for the search
-- statistics: two folds would upsert the same count rows and could deadlock; a second caller
-- returns 0 at once. Only the fold writes summary_counts, so writers never wait on its rows.
CREATE OR REPLACE FUNCTION amem_fold_summary_counts(p_limit int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  v_ids bigint[];
  v_folded int;
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtext('amem_fold_summary_counts')) THEN
    RETURN 0;
  END IF;
  -- The batch's ids first, into an array (as amem_fold_search_stats does: as a subquery of the
  -- DELETE, the planner may re-run the locking subquery per row).
  SELECT array_agg(q.id) INTO v_ids
  FROM (SELECT id FROM summary_count_deltas ORDER BY id LIMIT p_limit FOR UPDATE SKIP LOCKED) q;
  IF v_ids IS NULL THEN
    RETURN 0;
  END IF;
  WITH taken AS (
    DELETE FROM summary_count_deltas d WHERE d.id = ANY (v_ids)
    RETURNING d.user_id, d.kind, d.key, d.n, d.last_at
  ), counted AS (
    INSERT INTO summary_counts AS c (user_id, kind, key, n, last_at)
    SELECT t.user_id, t.kind, t.key, sum(t.n), max(t.last_at) FROM taken t GROUP BY 1, 2, 3
    ON CONFLICT (user_id, kind, key) DO UPDATE
      SET n = c.n + excluded.n, last_at = greatest(c.last_at, excluded.last_at)
  )
  SELECT count(*) INTO v_folded FROM taken;
  RETURN v_folded;
END
$$;
