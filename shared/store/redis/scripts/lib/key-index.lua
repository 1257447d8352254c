-- Lists a key in the user's key index (same slot), which erasure and password reset read instead
-- of a SCAN. Two random members whose keys are gone (expired) leave the index each time, so it
-- stays near the number of keys that exist; a member whose key exists is never removed.
local function indexKey(index, key)
  for _, member in ipairs(redis.call('SRANDMEMBER', index, 2)) do
    if redis.call('EXISTS', member) == 0 then redis.call('SREM', index, member) end
  end
  redis.call('SADD', index, key)
end
