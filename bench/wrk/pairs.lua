-- POST /…/triage/complete with a DISTINCT (sessionId, attemptId) per request, set up by
-- bench/triage.ts through bench/lib/wrk.ts:
--   WRK_PAIRS  a file of "sessionId attemptId" lines, each used once: thread t of T sends lines
--              t, t+T, t+2T, …; a repeat would measure the cheap stored-result path instead.
--   WRK_AGENT  the agent of every body
--   WRK_WRAP=1 cycle through the file instead (B-queue, which ignores the ids)
-- When a thread runs out of pairs it sends an invalid body (a 400, counted as non-2xx) and counts it
-- as "exhausted". done() prints one line the benchmark parses:
--   PAIRS sent=<n> answered=<n> ok=<n> completed=<n> s503=<n> other=<n> exhausted=<n>
-- (`completed`: 200s whose body says "triageStatus":"completed"; sent − answered = in flight at the stop).
local path = os.getenv("WRK_PAIRS") or error("WRK_PAIRS is not set")
local agent = os.getenv("WRK_AGENT") or "bench-agent"
local wrap = os.getenv("WRK_WRAP") == "1"

local threads = {}
local count = 0
function setup(thread)
  count = count + 1
  thread:set("tid", count)
  threads[#threads + 1] = thread
end

local bodies = {}
local nthreads = 1
local i = 0
sent, answered, ok, completed, s503, other, exhausted = 0, 0, 0, 0, 0, 0, 0

function init(args)
  wrk.headers["Content-Type"] = "application/json"
  nthreads = tonumber(os.getenv("WRK_THREADS") or "1")
  local n = 0
  for line in io.lines(path) do
    n = n + 1
    if (n - tid) % nthreads == 0 then
      local session, attempt = line:match("^(%S+) (%S+)$")
      bodies[#bodies + 1] = '{"agent":"' .. agent .. '","sessionId":"' .. session .. '","attemptId":"' .. attempt .. '"}'
    end
  end
  if #bodies == 0 then error("no pairs for thread " .. tid) end
end

function request()
  i = i + 1
  sent = sent + 1
  if i > #bodies then
    if not wrap then
      exhausted = exhausted + 1
      return wrk.format("POST", nil, nil, "{}")
    end
    i = 1
  end
  return wrk.format("POST", nil, nil, bodies[i])
end

function response(status, headers, body)
  answered = answered + 1
  if status == 200 then
    ok = ok + 1
    if string.find(body, '"triageStatus":"completed"', 1, true) then completed = completed + 1 end
  elseif status == 503 then
    s503 = s503 + 1
  else
    other = other + 1
  end
end

function done(summary, latency, requests)
  local t = { sent = 0, answered = 0, ok = 0, completed = 0, s503 = 0, other = 0, exhausted = 0 }
  for _, thread in ipairs(threads) do
    for k, _ in pairs(t) do t[k] = t[k] + (thread:get(k) or 0) end
  end
  io.write(string.format("PAIRS sent=%d answered=%d ok=%d completed=%d s503=%d other=%d exhausted=%d\n",
    t.sent, t.answered, t.ok, t.completed, t.s503, t.other, t.exhausted))
end
