-- Counts one request in a fixed window and returns the window's count so far.
local function countRequest(rateKey, windowSeconds)
  local count = redis.call('INCR', rateKey)
  if count == 1 then redis.call('EXPIRE', rateKey, windowSeconds) end
  return count
end
