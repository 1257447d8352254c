-- Keeps a triage refusal Postgres gave as the session's quiet state, only if nothing can have
-- changed it while Postgres was read: the generation is still the one taken before the read (no
-- write began or ended since) and no write is in flight. Expired holds (a write that rolled back or
-- whose process died) are dropped here.
-- KEYS[1] the session's triage-quiet hash   KEYS[2] the user's key index (erasure)
-- ARGV[1] the generation taken before the read   ARGV[2] now (ms)   ARGV[3] the refusal's snapshot
-- ARGV[4] TTL (ms)
-- Returns 1 when kept, 0 when not.
local g = redis.call('HGET', KEYS[1], 'g') or '0'
if g ~= ARGV[1] then return 0 end
local now = tonumber(ARGV[2])
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  local f = fields[i]
  if string.sub(f, 1, 2) == 'h:' then
    if tonumber(fields[i + 1]) > now then return 0 end
    redis.call('HDEL', KEYS[1], f)
  end
end
redis.call('HSET', KEYS[1], 'g', g, 'sg', g, 's', ARGV[3])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[4]) then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
redis.call('SADD', KEYS[2], KEYS[1])
return 1
