-- amem_unindex_memory: the memories update trigger that takes a memory out of its tenant's search
-- statistics of current memories when it stops being current (superseded by a revision: valid_to
-- set; archived), so that the N, average lengths and df a search of current memories ranks with
-- describe those memories: a memory revised ten times would otherwise count its words eleven times
-- and make them look common, and the memory kept up to date would be the hardest to find. It adds
-- a `removed` memory_search_pending row with the lengths its insert row had (amem_memory_postings'
-- null-term row, of the row as it was: OLD, so a later change of the generated document cannot
-- make the two differ); the fold adds it to the `removed…` figures, and a search counts it while it is
-- pending, so the statistics stay exact in any snapshot. Its postings stay: a `current: false`
-- search still finds the memory, and ranks with the statistics of every memory. No memory becomes
-- current again.
CREATE OR REPLACE FUNCTION amem_unindex_memory() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO memory_search_pending (user_id, memory_id, topic_length, content_length, removed)
  SELECT NEW.user_id, NEW.id, p.topic_length, p.content_length, true
  FROM amem_memory_postings(OLD.search, NULL, NULL, NULL) p
  WHERE p.term IS NULL
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS memories_search_unindex ON memories;
CREATE TRIGGER memories_search_unindex AFTER UPDATE OF valid_to, status ON memories
  FOR EACH ROW
  WHEN (OLD.valid_to IS NULL AND OLD.status = 'active' AND (NEW.valid_to IS NOT NULL OR NEW.status <> 'active'))
  EXECUTE FUNCTION amem_unindex_memory();
