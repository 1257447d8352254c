-- One fixed request per call, configured from the environment by bench/lib/wrk.ts:
--   WRK_METHOD  (default GET)   WRK_BODY  (JSON body; sets Content-Type: application/json)
--   WRK_CHECK   (optional) body strings that count an answer as failed, see check.lua
-- Other headers (X-API-Key) are passed with wrk -H. No response() callback without WRK_CHECK on
-- purpose: it makes wrk parse every body in Lua and costs load-generator CPU; wrk counts non-2xx
-- answers itself.
dofile((string.match(debug.getinfo(1, "S").source, "^@(.*/)") or "") .. "check.lua")
wrk.method = os.getenv("WRK_METHOD") or "GET"
local body = os.getenv("WRK_BODY")
if body ~= nil and body ~= "" then
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
end
