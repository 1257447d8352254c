-- Drops a not-yet-flushed excerpt from a lease hash, but only while the hash still holds the run at
-- the epoch whose excerpt was cleared in Postgres (a resurrected run's new excerpt stays).
-- KEYS[1] lease hash
-- ARGV[1] run id   ARGV[2] epoch
-- Returns 1 when an excerpt was dropped, else 0.
local state = redis.call('HMGET', KEYS[1], 'run', 'epoch')
if state[1] ~= ARGV[1] or state[2] ~= ARGV[2] then return 0 end
return redis.call('HDEL', KEYS[1], 'ex', 'exAt') > 0 and 1 or 0
