-- POSTs a rotating set of JSON bodies, set up by bench/memories.ts through bench/lib/wrk.ts:
--   WRK_BODIES  the bodies, one per line (JSON never contains a raw newline)
-- Each thread starts at a different body. X-API-Key comes with wrk -H; wrk counts non-2xx itself.
-- WRK_CHECK (optional): body strings that count an answer as failed, see check.lua.
dofile((string.match(debug.getinfo(1, "S").source, "^@(.*/)") or "") .. "check.lua")
local raw = os.getenv("WRK_BODIES") or ""
local bodies = {}
for line in string.gmatch(raw, "[^\n]+") do bodies[#bodies + 1] = line end

local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
  check_setup(thread)
end

local i = 0
function init(args)
  if #bodies == 0 then error("WRK_BODIES is empty") end
  i = ((tid or 1) - 1) * 7
  wrk.headers["Content-Type"] = "application/json"
end

function request()
  i = i + 1
  return wrk.format("POST", nil, nil, bodies[(i % #bodies) + 1])
end
