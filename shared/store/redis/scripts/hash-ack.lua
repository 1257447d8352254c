-- Deletes hash fields whose values are still the ones just flushed (newer values stay for the next pass).
-- KEYS[1] hash   ARGV pairs: field, flushed value
local removed = 0
for i = 1, #ARGV, 2 do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[i + 1] then
    removed = removed + redis.call('HDEL', KEYS[1], ARGV[i])
  end
end
return removed
