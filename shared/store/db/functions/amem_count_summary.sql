-- amem_count_summary: the triggers that keep the dashboard summary's counts (summary_counts,
-- docs/decisions/dashboard.md) by appending what changed to summary_count_deltas in the writing
-- transaction — one new row per statement and key for an insert or a delete (over the transition
-- table, so a bulk COPY appends a handful of rows), one or two per row whose counted state changed.
-- A write never updates a shared counter row, so a fleet writing one tenant's memories
-- concurrently never queues on one; the workers' fold (amem_fold_summary_counts) adds the deltas up.
-- What is counted, per table:
--   memories        kind memory.<state> (amem_memory_count_kind), key memory_type, last_at updated_at
--   commitments     kind commitment, key status, last_at updated_at
--   agent_sessions  kind session, key triage_status (last activity: their last-seen index)
-- Memories and commitments change updated_at only together with a counted state (supersede,
-- archive, a status move), but a row whose updated_at alone moved still appends n = 0 with its
-- time, so lastActivityAt stays exact whatever a later path writes.

-- A memory's state as the summary counts it: superseded (validity closed, archived or not),
-- archived, or current. Inlined by Postgres where it is called.
CREATE OR REPLACE FUNCTION amem_memory_count_kind(p_valid_to timestamptz, p_status text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_valid_to IS NOT NULL THEN 'memory.superseded'
              WHEN p_status = 'archived' THEN 'memory.archived'
              ELSE 'memory.current' END
$$;

CREATE OR REPLACE FUNCTION amem_count_summary() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_LEVEL = 'STATEMENT' AND TG_OP = 'INSERT' THEN
    IF TG_TABLE_NAME = 'memories' THEN
      INSERT INTO summary_count_deltas (user_id, kind, key, n, last_at)
      SELECT user_id, amem_memory_count_kind(valid_to, status), memory_type, count(*), max(updated_at)
      FROM amem_counted_new GROUP BY 1, 2, 3;
    ELSIF TG_TABLE_NAME = 'commitments' THEN
      INSERT INTO summary_count_deltas (user_id, kind, key, n, last_at)
      SELECT user_id, 'commitment', status, count(*), max(updated_at) FROM amem_counted_new GROUP BY 1, 3;
    ELSE
      INSERT INTO summary_count_deltas (user_id, kind, key, n)
      SELECT user_id, 'session', triage_status, count(*) FROM amem_counted_new GROUP BY 1, 3;
    END IF;
  ELSIF TG_LEVEL = 'STATEMENT' AND TG_OP = 'DELETE' THEN
    IF TG_TABLE_NAME = 'memories' THEN
      INSERT INTO summary_count_deltas (user_id, kind, key, n)
      SELECT user_id, amem_memory_count_kind(valid_to, status), memory_type, -count(*)
      FROM amem_counted_old GROUP BY 1, 2, 3;
    ELSIF TG_TABLE_NAME = 'commitments' THEN
      INSERT INTO summary_count_deltas (user_id, kind, key, n)
      SELECT user_id, 'commitment', status, -count(*) FROM amem_counted_old GROUP BY 1, 3;
    ELSE
      INSERT INTO summary_count_deltas (user_id, kind, key, n)
      SELECT user_id, 'session', triage_status, -count(*) FROM amem_counted_old GROUP BY 1, 3;
    END IF;
  ELSIF TG_TABLE_NAME = 'memories' THEN
    -- A row-level UPDATE whose counted state or updated_at changed (the trigger's WHEN).
    INSERT INTO summary_count_deltas (user_id, kind, key, n, last_at)
    SELECT OLD.user_id, amem_memory_count_kind(OLD.valid_to, OLD.status), OLD.memory_type, -1, NULL
    WHERE (amem_memory_count_kind(OLD.valid_to, OLD.status), OLD.memory_type)
      IS DISTINCT FROM (amem_memory_count_kind(NEW.valid_to, NEW.status), NEW.memory_type)
    UNION ALL
    SELECT NEW.user_id, amem_memory_count_kind(NEW.valid_to, NEW.status), NEW.memory_type,
      CASE WHEN (amem_memory_count_kind(OLD.valid_to, OLD.status), OLD.memory_type)
        IS DISTINCT FROM (amem_memory_count_kind(NEW.valid_to, NEW.status), NEW.memory_type) THEN 1 ELSE 0 END,
      NEW.updated_at;
  ELSIF TG_TABLE_NAME = 'commitments' THEN
    INSERT INTO summary_count_deltas (user_id, kind, key, n, last_at)
    SELECT OLD.user_id, 'commitment', OLD.status, -1, NULL WHERE OLD.status IS DISTINCT FROM NEW.status
    UNION ALL
    SELECT NEW.user_id, 'commitment', NEW.status, CASE WHEN OLD.status IS DISTINCT FROM NEW.status THEN 1 ELSE 0 END,
      NEW.updated_at;
  ELSE
    INSERT INTO summary_count_deltas (user_id, kind, key, n)
    VALUES (OLD.user_id, 'session', OLD.triage_status, -1), (NEW.user_id, 'session', NEW.triage_status, 1);
  END IF;
  RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS memories_count_insert ON memories;
CREATE TRIGGER memories_count_insert AFTER INSERT ON memories
  REFERENCING NEW TABLE AS amem_counted_new FOR EACH STATEMENT EXECUTE FUNCTION amem_count_summary();
DROP TRIGGER IF EXISTS memories_count_delete ON memories;
CREATE TRIGGER memories_count_delete AFTER DELETE ON memories
  REFERENCING OLD TABLE AS amem_counted_old FOR EACH STATEMENT EXECUTE FUNCTION amem_count_summary();
DROP TRIGGER IF EXISTS memories_count_update ON memories;
CREATE TRIGGER memories_count_update AFTER UPDATE OF valid_to, status, memory_type, updated_at ON memories
  FOR EACH ROW
  WHEN (OLD.valid_to IS DISTINCT FROM NEW.valid_to OR OLD.status IS DISTINCT FROM NEW.status
    OR OLD.memory_type IS DISTINCT FROM NEW.memory_type OR OLD.updated_at IS DISTINCT FROM NEW.updated_at)
  EXECUTE FUNCTION amem_count_summary();

DROP TRIGGER IF EXISTS commitments_count_insert ON commitments;
CREATE TRIGGER commitments_count_insert AFTER INSERT ON commitments
  REFERENCING NEW TABLE AS amem_counted_new FOR EACH STATEMENT EXECUTE FUNCTION amem_count_summary();
DROP TRIGGER IF EXISTS commitments_count_delete ON commitments;
CREATE TRIGGER commitments_count_delete AFTER DELETE ON commitments
  REFERENCING OLD TABLE AS amem_counted_old FOR EACH STATEMENT EXECUTE FUNCTION amem_count_summary();
DROP TRIGGER IF EXISTS commitments_count_update ON commitments;
CREATE TRIGGER commitments_count_update AFTER UPDATE OF status, updated_at ON commitments
  FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.updated_at IS DISTINCT FROM NEW.updated_at)
  EXECUTE FUNCTION amem_count_summary();

DROP TRIGGER IF EXISTS agent_sessions_count_insert ON agent_sessions;
CREATE TRIGGER agent_sessions_count_insert AFTER INSERT ON agent_sessions
  REFERENCING NEW TABLE AS amem_counted_new FOR EACH STATEMENT EXECUTE FUNCTION amem_count_summary();
DROP TRIGGER IF EXISTS agent_sessions_count_delete ON agent_sessions;
CREATE TRIGGER agent_sessions_count_delete AFTER DELETE ON agent_sessions
  REFERENCING OLD TABLE AS amem_counted_old FOR EACH STATEMENT EXECUTE FUNCTION amem_count_summary();
DROP TRIGGER IF EXISTS agent_sessions_count_update ON agent_sessions;
CREATE TRIGGER agent_sessions_count_update AFTER UPDATE OF triage_status ON agent_sessions
  FOR EACH ROW WHEN (OLD.triage_status IS DISTINCT FROM NEW.triage_status)
  EXECUTE FUNCTION amem_count_summary();
