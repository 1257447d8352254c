-- Trigram similarity for memory search and consolidation (SPEC §4.3, §7).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
