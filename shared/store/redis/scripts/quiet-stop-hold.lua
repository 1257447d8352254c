-- A write attributed to a run (or a begin that may arm) around its Postgres transaction: `hold`
-- before it commits, `release` after. Both move the generation on, so a refusal read before either
-- is never kept or answered again; the hold's deadline keeps the quiet state unusable while the
-- write may still commit, even if its release never comes (a process killed, Redis unreachable).
-- KEYS[1] the session's triage-quiet hash   KEYS[2] the user's key index (erasure)
-- ARGV[1] 'hold' | 'release'   ARGV[2] the new generation   ARGV[3] the write's token
-- ARGV[4] the hold's deadline (ms)   ARGV[5] TTL (ms, at least the hold's reach)
-- Returns 1.
redis.call('HSET', KEYS[1], 'g', ARGV[2])
if ARGV[1] == 'hold' then
  redis.call('HSET', KEYS[1], 'h:' .. ARGV[3], ARGV[4])
else
  redis.call('HDEL', KEYS[1], 'h:' .. ARGV[3])
end
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[5]) then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
redis.call('SADD', KEYS[2], KEYS[1])
return 1
