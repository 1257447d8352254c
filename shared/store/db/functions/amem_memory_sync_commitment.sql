-- amem_memory_sync_commitment: when a memory's state that the briefing filters on changes —
-- superseded (valid_to), archived (status), its type, scope (a scope rename, erasure) or project
-- (erasure) — its commitment's copy of that state follows in the same statement (commitments
-- memory_current, memory_scope, memory_project; docs/decisions/briefing.md). Whatever code path
-- writes the memory, the copy cannot lag. Only rows whose state changed reach the function (the
-- trigger's WHEN), and a memory without a commitment costs one probe of commitments_memory_key.
-- It re-points the commitment at the same memory, so amem_commitment_copy_memory re-reads the
-- state from the memory row as this statement left it: what "current" means is written once.
CREATE OR REPLACE FUNCTION amem_memory_sync_commitment() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE commitments SET memory_id = NEW.id WHERE memory_id = NEW.id;
  RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS memories_sync_commitment ON memories;
CREATE TRIGGER memories_sync_commitment AFTER UPDATE OF valid_to, status, memory_type, scope, project ON memories
  FOR EACH ROW
  WHEN (OLD.valid_to IS DISTINCT FROM NEW.valid_to OR OLD.status IS DISTINCT FROM NEW.status
    OR OLD.memory_type IS DISTINCT FROM NEW.memory_type OR OLD.scope IS DISTINCT FROM NEW.scope
    OR OLD.project IS DISTINCT FROM NEW.project)
  EXECUTE FUNCTION amem_memory_sync_commitment();
