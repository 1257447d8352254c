-- Shared by request.lua, rotate.lua, unique.lua and capture.lua (loaded with dofile, before they read
-- their settings): wrk's setup(thread), which numbers the threads (the global `tid` of each, from 1:
-- where a thread starts in a rotation, what makes its generated bodies unique), `split_template`, and
-- an optional check of every answer's body:
--   WRK_CHECK  strings, one per line: an answer whose body contains any of them counts as failed
--              (an MCP tool error `"isError":true` or a JSON-RPC error answered with HTTP 200, which
--              wrk's own non-2xx count cannot see)
-- Unset, nothing is defined: wrk then reads no body into Lua (no load-generator cost). Set, done()
-- prints one line the benchmark parses: CHECK answered=<n> failed=<n> sample=<first failed body>
local raw = os.getenv("WRK_CHECK") or ""
local patterns = {}
for line in string.gmatch(raw, "[^\n]+") do patterns[#patterns + 1] = line end

-- Every thread, numbered in the order wrk creates them; done() sums their counts.
check_threads = {}
function setup(thread)
  check_threads[#check_threads + 1] = thread
  thread:set("tid", #check_threads)
end

-- The text before and after the one `placeholder` in `template` (`name`: the variable, for the error).
function split_template(template, placeholder, name)
  local at = string.find(template, placeholder, 1, true)
  if not at then error(name .. " has no " .. placeholder) end
  local after = string.sub(template, at + #placeholder)
  if string.find(after, placeholder, 1, true) then error(name .. " names " .. placeholder .. " more than once") end
  return string.sub(template, 1, at - 1), after
end

if #patterns > 0 then
  answered, failed, sample = 0, 0, ""

  function response(status, headers, body)
    answered = answered + 1
    for _, p in ipairs(patterns) do
      if string.find(body, p, 1, true) then
        failed = failed + 1
        if sample == "" then sample = string.sub(body, 1, 300) end
        return
      end
    end
  end

  function done(summary, latency, requests)
    local a, f, s = 0, 0, ""
    for _, thread in ipairs(check_threads) do
      a = a + (thread:get("answered") or 0)
      f = f + (thread:get("failed") or 0)
      if s == "" then s = thread:get("sample") or "" end
    end
    io.write(string.format("CHECK answered=%d failed=%d sample=%s\n", a, f, (string.gsub(s, "\n", " "))))
  end
end
