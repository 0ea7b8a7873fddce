-- wrk script: POST one A2A message/send (v0.3), SendMessage (v1.0) or HTTP+JSON
-- POST /message:send per request. Select with the environment: A2A_LOAD_VERSION=1.0|rest
local version = os.getenv("A2A_LOAD_VERSION") or "0.3"
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local expected = '"result"'
if version == "rest" then
  wrk.path = "/message:send"
  wrk.headers["A2A-Version"] = "1.0"
  wrk.body = '{"message":{"messageId":"load-1","role":"ROLE_USER","parts":[{"text":"hello"}]}}'
  expected = '"task"'
elseif version == "1.0" then
  wrk.headers["A2A-Version"] = "1.0"
  wrk.body = '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":'
    .. '{"messageId":"load-1","role":"ROLE_USER","parts":[{"text":"hello"}]}}}'
else
  wrk.body = '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":'
    .. '{"kind":"message","messageId":"load-1","role":"user","parts":[{"kind":"text","text":"hello"}]}}}'
end

-- Count answers that are not results, so errors never pass for throughput.
local failures = 0
response = function(status, headers, body)
  if status ~= 200 or not string.find(body, expected, 1, true) then
    failures = failures + 1
  end
end

done = function(summary, latency, requests)
  io.write(string.format("non-result answers: %d\n", failures))
end
