-- Heartbeat check-and-refresh of one session lease, atomically, in one round trip.
-- KEYS[1] lease hash   KEYS[2] dirty set (score = the hash's version)
-- ARGV[1] now (ms)   ARGV[2] lease (ms)   ARGV[3] key TTL (ms)   ARGV[4] '1' when an excerpt is sent   ARGV[5] excerpt
-- Returns {0} when the lease is not cached; {2, run, epoch, seen} when closed or lease-expired
-- (the caller resurrects in Postgres); {1, run, epoch, seen} after refreshing a live lease.
local state = redis.call('HMGET', KEYS[1], 'run', 'epoch', 'seen', 'closed')
if not state[1] then return { 0 } end
local now = tonumber(ARGV[1])
local seen = tonumber(state[3])
if state[4] ~= '0' or now - seen >= tonumber(ARGV[2]) then
  return { 2, state[1], state[2], state[3] }
end
if now > seen then
  seen = now
  redis.call('HSET', KEYS[1], 'seen', ARGV[1])
end
if ARGV[4] == '1' then redis.call('HSET', KEYS[1], 'ex', ARGV[5], 'exAt', ARGV[1]) end
local version = redis.call('HINCRBY', KEYS[1], 'v', 1)
redis.call('ZADD', KEYS[2], version, KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return { 1, state[1], state[2], tostring(seen) }
