-- amem_tenant_terms: a memory's search terms (memories.search's lexemes, the terms of its
-- memory_terms postings) each prefixed with its tenant, `<user id>:<term>`, for
-- memories_tenant_terms_idx (GIN): one index entry per (tenant, term), so a search asks which of
-- its own tenant's memories hold every word of a query (`@@ 'u:bullmq' & 'u:job' & …`) and the
-- index reads only that tenant's postings of those words, skipping through them (GIN's fast scan)
-- instead of reading them whole: 8 ms at 10⁶ memories for a four-word query that took 12 ms
-- through a `(user_id, search)` btree_gin index, whose one tenant entry held a million items (README
-- "Search": conjunctive candidates). Weights and positions are dropped: only presence is asked.
-- A term of more than 2,010 bytes is left out: the prefix (37 bytes) would take it past a lexeme's
-- 2,047, and array_to_tsvector refused it — every write of a memory holding a 2,030-byte hex blob
-- answered 500 (a review's find); the search never looks such a term up (conjunctiveCandidates).
CREATE OR REPLACE FUNCTION amem_tenant_terms(p_user_id uuid, p_search tsvector) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT array_to_tsvector(array(
    SELECT p_user_id::text || ':' || l FROM unnest(tsvector_to_array(p_search)) l WHERE octet_length(l) <= 2010))
$$;
