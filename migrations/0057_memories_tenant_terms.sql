-- Which of a tenant's current memories hold a term of every slot of a query: an unfiltered search's
-- conjunctive candidates (README "Search"). Built without CONCURRENTLY, as migrations run in a
-- transaction: memory writes wait while it builds (measured: see bench/README.md, "Eighteenth session").
CREATE INDEX "memories_tenant_terms_idx" ON "memories" USING gin (amem_tenant_terms("user_id", "search")) WHERE "memories"."valid_to" is null and "memories"."status" = 'active';