-- The Stop hook's quiet check (shared/triage/quiet-stop.ts): answers the last refusal Postgres gave
-- for the session when nothing can have changed it since — no write attributed to the run began
-- after it was read (the generation `g` is still the one it was read at, `sg`) and no write is in
-- flight (no `h:<token>` field whose deadline is ahead). Otherwise answers the generation to read
-- Postgres under, or nothing when a write is in flight (a refusal read now must not be kept).
-- Read-only.
-- KEYS[1] the session's triage-quiet hash
-- ARGV[1] now (ms)
-- Returns { snapshot or '', generation to record under or '' (do not record) }.
local fields = redis.call('HGETALL', KEYS[1])
local now = tonumber(ARGV[1])
local g, sg, s = '0', nil, nil
for i = 1, #fields, 2 do
  local f = fields[i]
  if f == 'g' then
    g = fields[i + 1]
  elseif f == 'sg' then
    sg = fields[i + 1]
  elseif f == 's' then
    s = fields[i + 1]
  elseif string.sub(f, 1, 2) == 'h:' and tonumber(fields[i + 1]) > now then
    return { '', '' }
  end
end
if s ~= nil and sg == g then return { s, g } end
return { '', g }
