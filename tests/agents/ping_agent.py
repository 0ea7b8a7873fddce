"""An agent process for `a2a-emulator --agent-cmd` whose `GET /ping` answers the way the
first argument says, to show how the emulator's session lifecycle reads it:

- `busy-unstamped`: `{"status": "HealthyBusy"}`, no `time_of_last_update`;
- `restamp`: `{"status": "Healthy", "time_of_last_update": T}` with T one second later on
  every ping (a container that stamps the time on every ping);
- `busy`: `HealthyBusy` with the time it started, never moved;
- `healthy-old`: `Healthy` with a time an hour before it started;
- `healthy-while-working`: `Healthy` with the time it started, while the task every send
  makes (`task-at-work`) stays `working` whenever asked (`tasks/get`);
- `healthy-after-work`: the same, but `tasks/get` finds the task `completed`.

In the last two modes, each `tasks/get` prints `tasks/get ID` on stdout.

`POST /` answers any other JSON-RPC request with a message saying `ok`. It listens on `A2A_HOST`
(default 127.0.0.1) and `PORT`, as the emulator tells it to.
"""

import http.server
import json
import os
import sys
import threading
import time

MODE = sys.argv[1]
STARTED = int(time.time())
PINGS = 0


class Handler(http.server.BaseHTTPRequestHandler):
    def _answer(self, body):
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        global PINGS
        if self.path != "/ping":
            self.send_error(404)
            return
        PINGS += 1
        if MODE == "busy-unstamped":
            self._answer({"status": "HealthyBusy"})
        elif MODE == "restamp":
            self._answer({"status": "Healthy", "time_of_last_update": STARTED + PINGS})
        elif MODE == "healthy-old":
            self._answer({"status": "Healthy", "time_of_last_update": STARTED - 3600})
        elif MODE in ("healthy-while-working", "healthy-after-work"):
            self._answer({"status": "Healthy", "time_of_last_update": STARTED})
        else:
            self._answer({"status": "HealthyBusy", "time_of_last_update": STARTED})

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        request = json.loads(self.rfile.read(length) or b"{}")
        method = request.get("method")
        if MODE in ("healthy-while-working", "healthy-after-work") and method in (
            "message/send",
            "tasks/get",
        ):
            if method == "tasks/get":
                print("tasks/get " + request["params"]["id"], flush=True)
            done = method == "tasks/get" and MODE == "healthy-after-work"
            self._answer(
                {
                    "jsonrpc": "2.0",
                    "id": request.get("id"),
                    "result": {
                        "kind": "task",
                        "id": "task-at-work",
                        "contextId": "context-at-work",
                        "status": {"state": "completed" if done else "working"},
                    },
                }
            )
            return
        self._answer(
            {
                "jsonrpc": "2.0",
                "id": request.get("id"),
                "result": {
                    "kind": "message",
                    "role": "agent",
                    "messageId": "ping-agent-reply",
                    "parts": [{"kind": "text", "text": "ok"}],
                },
            }
        )

    def log_message(self, *args):
        pass


def exit_with_parent():
    """Exits once the emulator that started it is gone (a test that failed before
    stopping it must not leave this process behind)."""
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(0.2)
    os._exit(0)


threading.Thread(target=exit_with_parent, daemon=True).start()
server = http.server.ThreadingHTTPServer(
    (os.environ.get("A2A_HOST", "127.0.0.1"), int(os.environ["PORT"])), Handler
)
server.serve_forever()
