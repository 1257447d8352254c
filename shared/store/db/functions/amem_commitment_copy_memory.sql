-- amem_commitment_copy_memory: a commitment's copy of its memory's state (commitments.memory_current,
-- memory_scope, memory_project; docs/decisions/briefing.md), read from the memory whenever the row
-- is inserted or pointed at another memory (a revision moves the commitment to the successor), and
-- whenever anything writes the copies themselves, so no write to commitments can make them differ
-- from the memory. amem_memory_sync_commitment pushes the memory's later changes. A commitment
-- whose memory does not exist keeps no state (its foreign key rejects the row).
CREATE OR REPLACE FUNCTION amem_commitment_copy_memory() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT m.valid_to IS NULL AND m.status = 'active' AND m.memory_type = 'commitment', m.scope, m.project
    INTO NEW.memory_current, NEW.memory_scope, NEW.memory_project
    FROM memories m WHERE m.id = NEW.memory_id;
  IF NOT FOUND THEN
    NEW.memory_current := false;
  END IF;
  RETURN NEW;
END
$$;

DROP TRIGGER IF EXISTS commitments_copy_memory ON commitments;
CREATE TRIGGER commitments_copy_memory BEFORE INSERT OR UPDATE OF memory_id, memory_current, memory_scope, memory_project
  ON commitments FOR EACH ROW EXECUTE FUNCTION amem_commitment_copy_memory();
