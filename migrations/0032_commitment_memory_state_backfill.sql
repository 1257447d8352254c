-- Copies every existing commitment's memory state (amem_commitment_copy_memory reads it from the
-- memory when a commitment is pointed at its memory; the triggers keep it from now on).
UPDATE commitments SET memory_id = memory_id;
