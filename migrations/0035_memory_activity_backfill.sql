-- The memories already folded into the search statistics, counted into memory_activity once (the
-- fold counts every later one as it folds it; the ones still pending are counted by that fold).
INSERT INTO memory_activity (user_id, day, memory_type, written)
SELECT m.user_id, (m.created_at AT TIME ZONE 'UTC')::date, m.memory_type, count(*)
FROM memories m
WHERE NOT EXISTS (SELECT 1 FROM memory_search_pending p WHERE p.user_id = m.user_id AND p.memory_id = m.id)
GROUP BY 1, 2, 3;
