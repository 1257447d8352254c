-- One fixed request per call, configured from the environment by bench/lib/wrk.ts:
--   WRK_METHOD  (default GET)   WRK_BODY  (JSON body; sets Content-Type: application/json)
-- Other headers (X-API-Key) are passed with wrk -H. No response() callback on purpose: it makes
-- wrk parse every body in Lua and costs load-generator CPU; wrk counts non-2xx answers itself.
wrk.method = os.getenv("WRK_METHOD") or "GET"
local body = os.getenv("WRK_BODY")
if body ~= nil and body ~= "" then
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
end
