-- POSTs a rotating set of JSON bodies, set up by bench/memories.ts and bench/hooks.ts through bench/lib/wrk.ts:
--   WRK_BODIES       the bodies, one per line (JSON never contains a raw newline)
--   WRK_BODIES_FILE  (instead) a file of such lines: one environment string is capped at 128 KiB on
--                    Linux, too small for a thousand bodies
--   WRK_THREADS      (optional) wrk's thread count: the threads then start evenly spread over the
--                    bodies, so that no two requests in flight name the same body (the same session
--                    row) while the list is longer than the connections; unset, they start 7 apart
-- X-API-Key comes with wrk -H; wrk counts non-2xx itself.
-- WRK_CHECK (optional): body strings that count an answer as failed, see check.lua.
dofile((string.match(debug.getinfo(1, "S").source, "^@(.*/)") or "") .. "check.lua")
local bodies = {}
local file = os.getenv("WRK_BODIES_FILE") or ""
if file ~= "" then
  for line in io.lines(file) do
    if line ~= "" then bodies[#bodies + 1] = line end
  end
else
  local raw = os.getenv("WRK_BODIES") or ""
  for line in string.gmatch(raw, "[^\n]+") do bodies[#bodies + 1] = line end
end
local spread = tonumber(os.getenv("WRK_THREADS") or "0") or 0

local i = 0
function init(args)
  if #bodies == 0 then error("WRK_BODIES (or WRK_BODIES_FILE) is empty") end
  if spread > 0 then
    i = ((tid or 1) - 1) * math.floor(#bodies / spread)
  else
    i = ((tid or 1) - 1) * 7
  end
  wrk.headers["Content-Type"] = "application/json"
end

function request()
  i = i + 1
  return wrk.format("POST", nil, nil, bodies[(i % #bodies) + 1])
end
