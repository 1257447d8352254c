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
if not string.find(template, "%UNIQUE%", 1, true) then error("WRK_BODY has no %UNIQUE%") end
local at = string.find(template, "%UNIQUE%", 1, true)
local before, after = string.sub(template, 1, at - 1), string.sub(template, at + 8)
if string.find(after, "%UNIQUE%", 1, true) then error("WRK_BODY names %UNIQUE% more than once") end

local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
  check_setup(thread)
end

local counter = 0
function init(args)
  wrk.headers["Content-Type"] = "application/json"
end

function request()
  counter = counter + 1
  return wrk.format("POST", nil, nil, before .. run .. "-" .. (tid or 0) .. "-" .. counter .. after)
end
