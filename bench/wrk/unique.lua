-- POSTs one body template with a token unique to each request, set up by bench/hooks.ts through
-- bench/lib/wrk.ts:
--   WRK_BODY  the JSON body; its one `%UNIQUE%` becomes <WRK_RUN>-<thread>-<counter>
--             (a SessionStart hook of a new session per request: a distinct session_id)
--   WRK_RUN   a token unique to this wrk invocation (so that a warm-up and its figure never collide)
-- X-API-Key comes with wrk -H; wrk counts non-2xx itself.
-- WRK_CHECK (optional): body strings that count an answer as failed, see check.lua.
dofile((string.match(debug.getinfo(1, "S").source, "^@(.*/)") or "") .. "check.lua")
local template = os.getenv("WRK_BODY") or ""
local run = os.getenv("WRK_RUN") or tostring(os.time())
local before, after = split_template(template, "%UNIQUE%", "WRK_BODY")

local counter = 0
function init(args)
  wrk.headers["Content-Type"] = "application/json"
end

function request()
  counter = counter + 1
  return wrk.format("POST", nil, nil, before .. run .. "-" .. (tid or 0) .. "-" .. counter .. after)
end
