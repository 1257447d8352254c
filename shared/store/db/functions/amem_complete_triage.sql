-- amem_complete_triage: triage complete (SPEC §3.8) as one statement — the account write fence, the
-- session row lock, the decision, the finalization and the stored answer (shared/store/db/queries/triage.ts
-- calls it). This file is the function's source: a migration installs it (docs/decisions/postgres.md,
-- "Postgres functions"), and test/unit/db-functions.test.ts checks that the latest migration and the database
-- both hold exactly this definition.
CREATE OR REPLACE FUNCTION amem_complete_triage(
  p_user uuid, p_agent text, p_session text, p_attempt uuid, p_now timestamptz, p_ceiling int
) RETURNS TABLE (outcome text, body text) LANGUAGE plpgsql AS $$
DECLARE
  run record;
  attempt record;
  visible uuid[];
  since_begin uuid[];
  is_truncated boolean;
  status text;
  answer text;
BEGIN
  -- The write fence (shared/core/accounts/write-fence.ts): the user row held FOR KEY SHARE while the
  -- account is active, so this commits before an erasure begins or not at all.
  PERFORM 1 FROM users u WHERE u.id = p_user AND u.state = 'active' FOR KEY SHARE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'account_deleted'::text, NULL::text; RETURN; END IF;

  -- The session row lock serialises complete, begin and the closer on this run.
  SELECT s.id, s.triage_status, s.triage_attempt_id INTO run
    FROM agent_sessions s
    WHERE s.user_id = p_user AND s.agent = p_agent AND s.session_id = p_session
    FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'not_found'::text, NULL::text; RETURN; END IF;

  SELECT a.begin_stamp, a.finalized_by, a.result INTO attempt
    FROM triage_attempts a WHERE a.id = p_attempt AND a.session_run_id = run.id;
  IF NOT FOUND THEN RETURN QUERY SELECT 'conflict'::text, NULL::text; RETURN; END IF;
  IF attempt.finalized_by = 'complete' AND attempt.result IS NOT NULL THEN
    RETURN QUERY SELECT 'ok'::text, attempt.result; RETURN;
  END IF;
  IF run.triage_status <> 'pending' OR run.triage_attempt_id IS DISTINCT FROM p_attempt THEN
    RETURN QUERY SELECT 'conflict'::text, NULL::text; RETURN;
  END IF;

  -- The run's first events in id order; one more than the ceiling tells whether it is past it.
  SELECT coalesce(array_agg(e.id ORDER BY e.id), '{}') INTO visible
    FROM (SELECT m.id FROM memory_events m
          WHERE m.user_id = p_user AND m.session_run_id = run.id
          ORDER BY m.id LIMIT p_ceiling + 1) e;
  is_truncated := cardinality(visible) > p_ceiling;
  IF is_truncated THEN visible := visible[1:p_ceiling]; END IF;
  SELECT coalesce(array_agg(v ORDER BY v), '{}') INTO since_begin
    FROM unnest(visible) AS v WHERE NOT (v = ANY (attempt.begin_stamp));
  status := CASE WHEN is_truncated THEN 'overflowed'
                 WHEN cardinality(since_begin) = 0 THEN 'expired'
                 ELSE 'completed' END;
  -- Built by hand: json/jsonb would reorder keys or add spaces; every value here is a number,
  -- a uuid, one of three words or a boolean, so nothing needs escaping.
  answer := format('{"eventCount":%s,"sessionRunId":"%s","sinceBeginCount":%s,"triageStatus":"%s","truncated":%s}',
    cardinality(visible), run.id, cardinality(since_begin), status, is_truncated::text);

  -- The absorbed events (provenance) are kept on the attempt: one row written, however many events.
  UPDATE triage_attempts SET outcome = status, finalized_by = 'complete', finalized_at = p_now, result = answer,
      absorbed_event_ids = CASE WHEN status = 'completed' THEN since_begin END
    WHERE id = p_attempt;
  UPDATE agent_sessions SET triage_status = status, triage_watermark = visible WHERE id = run.id;
  RETURN QUERY SELECT 'ok'::text, answer;
END
$$;
