-- The dashboard summary's counts of the rows written before the counting triggers
-- (amem_count_summary), counted once. The tables are locked against writes first, so no write
-- commits between the count and the triggers taking over; any deltas and counts already there are
-- replaced, so the figures are exact even if the triggers were installed by an earlier run.
LOCK TABLE memories, commitments, agent_sessions IN SHARE MODE;
--> statement-breakpoint
DELETE FROM summary_count_deltas;
--> statement-breakpoint
DELETE FROM summary_counts;
--> statement-breakpoint
INSERT INTO summary_counts (user_id, kind, key, n, last_at)
SELECT user_id, amem_memory_count_kind(valid_to, status), memory_type, count(*), max(updated_at)
FROM memories GROUP BY 1, 2, 3;
--> statement-breakpoint
INSERT INTO summary_counts (user_id, kind, key, n, last_at)
SELECT user_id, 'commitment', status, count(*), max(updated_at) FROM commitments GROUP BY 1, 3;
--> statement-breakpoint
INSERT INTO summary_counts (user_id, kind, key, n)
SELECT user_id, 'session', triage_status, count(*) FROM agent_sessions GROUP BY 1, 3;
