-- POST /api/v1/memories with UNIQUE content per request (a duplicate would be a 409), set up by
-- bench/memories.ts through bench/lib/wrk.ts:
--   WRK_RUN  a token unique to this wrk invocation (content = words + run + thread + counter + random)
--   WRK_ENVELOPE  (optional) a template around the body, which replaces its `%BODY%`: the MCP
--                 benchmark sends the same memory as a JSON-RPC `tools/call remember` this way
--   WRK_CHECK     (optional) body strings that count an answer as failed, see check.lua
-- X-API-Key comes with wrk -H. No response() callback without WRK_CHECK: wrk counts non-2xx itself, and the
-- benchmark aborts on any. Every memory is tagged "bench-capture" so the benchmark can delete them.
dofile((string.match(debug.getinfo(1, "S").source, "^@(.*/)") or "") .. "check.lua")
local run = os.getenv("WRK_RUN") or tostring(os.time())
local envelope = os.getenv("WRK_ENVELOPE") or ""
local before, after = "", ""
if envelope ~= "" then before, after = split_template(envelope, "%BODY%", "WRK_ENVELOPE") end

local components = { "auth middleware", "session lease", "search query", "migration runner", "billing worker",
  "webhook handler", "rate limiter", "connection pool", "job queue", "cache layer", "deploy script", "CI pipeline",
  "e2e test suite", "token refresh", "report export", "websocket server" }
local tech = { "Postgres", "Redis", "BullMQ", "Bun", "Elysia", "drizzle", "Docker", "nginx", "Playwright", "pino" }
local problems = { "times out after 30 seconds", "is flaky on CI", "leaks memory under load", "returns stale data",
  "exhausts the connection pool", "crashes on SIGTERM", "sends duplicate emails", "ignores the timezone" }
local actions = { "add a regression test", "bump the timeout", "retry with exponential backoff", "batch the inserts",
  "wrap it in a transaction", "cache the result", "pin the dependency version", "log the request id" }
local types = { "note", "decision", "fact", "pattern", "blocker", "event" }

local counter = 0
function init(args)
  math.randomseed(os.time() * 1000 + (tid or 0) * 7919)
  wrk.headers["Content-Type"] = "application/json"
end

local function pick(list) return list[math.random(#list)] end

function request()
  counter = counter + 1
  local c = pick(components)
  local content = string.format("The %s on %s %s; next step is to %s. Captured by run %s thread %d #%d (%d).",
    c, pick(tech), pick(problems), pick(actions), run, tid or 0, counter, math.random(1000000))
  local body = '{"memoryType":"' .. pick(types) .. '","topic":"' .. c .. ' notes","content":"' .. content ..
    '","project":"amem","tags":["bench-capture"]}'
  return wrk.format("POST", nil, nil, before .. body .. after)
end
