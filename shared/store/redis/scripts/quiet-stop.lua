-- The Stop hook's quiet check (shared/core/triage/quiet-stop.ts): answers the last refusal Postgres gave
-- for the session when nothing can have changed it since — the generation `g` is still the one it
-- was kept at (`sg`): a write attributed to the run, or a begin that may arm, moves `g` on when it
-- takes its hold and again when it releases it. Also answers the current generation, under which
-- a refusal read from Postgres next may be kept (quiet-stop-record.lua). Read-only.
-- KEYS[1] the session's triage-quiet hash
-- Returns { snapshot or '', generation ('0' when there is none) }.
local state = redis.call('HMGET', KEYS[1], 'g', 'sg', 's')
local g = state[1] or '0'
if state[3] and state[2] == g then return { state[3], g } end
return { '', g }
