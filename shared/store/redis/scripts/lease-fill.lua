-- Writes a session's state, read from or just committed to Postgres, into its lease hash without
-- ever moving it backwards: a higher cached epoch wins; within one epoch `seen` takes the maximum
-- and `closed` is sticky (leaving closed always mints a new epoch).
-- The user's key index (KEYS[2], same slot) lists the hash so erasure finds it without a SCAN
-- (indexKey, lib/key-index.lua: it also prunes two members whose keys are gone).
-- KEYS[1] lease hash   KEYS[2] the user's key index
-- ARGV[1] run id   ARGV[2] epoch   ARGV[3] lastSeenAt (ms)   ARGV[4] closedAt (ms, '0' = open)   ARGV[5] TTL (ms)
-- Returns the state cached before the call: { run or '', epoch or '', seen or '', closed or '' }.
local before = redis.call('HMGET', KEYS[1], 'run', 'epoch', 'seen', 'closed')
local epoch, seen, closed = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
if before[1] == ARGV[1] then
  local cachedEpoch = tonumber(before[2])
  if cachedEpoch > epoch then
    return { before[1], before[2], before[3], before[4] }
  end
  if cachedEpoch == epoch then
    if tonumber(before[3]) > seen then seen = tonumber(before[3]) end
    if before[4] ~= '0' then closed = before[4] end
  end
end
redis.call('HSET', KEYS[1], 'run', ARGV[1], 'epoch', ARGV[2], 'seen', tostring(seen), 'closed', closed)
redis.call('PEXPIRE', KEYS[1], ARGV[5])
indexKey(KEYS[2], KEYS[1])
return { before[1] or '', before[2] or '', before[3] or '', before[4] or '' }
