-- btree_gin lets one GIN index serve a tenant and its trigram-matched terms together (the search
-- term dictionary, memory_term_stats). Offered by the major managed Postgres services.
CREATE EXTENSION IF NOT EXISTS btree_gin;
