#!/usr/bin/env python3
"""Load benchmark of the emulator against a minimal JSON-RPC ceiling, on loopback.

For each target it measures: time from process start to the first answered request,
requests/s and p50/p99 latency under wrk, server CPU per request (from /proc user+system
time over the run) and peak RSS (VmHWM). Targets:

  ceiling        a minimal axum + serde_json JSON-RPC echo (emulator/examples/jsonrpc_ceiling.rs)
  container      a2a-container, serve(agent): the shared router, no platform front
  front          the emulator as `make run` starts it (AgentCore front, throttling off,
                 the inspector's journal on), and again with `--inspector off`
each with v0.3 message/send and v1.0 SendMessage (A2A-Version: 1.0) to the echo agent,
and the container's HTTP+JSON binding, POST /message:send, and its gRPC binding,
lf.a2a.v1.A2AService/SendMessage (the container built with its `grpc` feature), in the same
run. And the container's telemetry (a2a-lambda-server's `otel`): compiled in but off, and
on (every span sampled, exported over OTLP/HTTP to a sink in this script), beside the
"container v1.0" row, which has it compiled out. Every target
runs with RUST_LOG=warn, except the "logs on" rows: the container and the front with the
default logging (info: a line per request), stderr to a file, whose lines are counted
(the "log lines" column: one per request answered, plus the startup lines).

Usage: scripts/load.py [--seconds N] [--connections N] [--rounds N] [--pin]
                       [--only TEXT] [--bin DIR]
--only runs the targets whose name contains TEXT (the ceiling always runs: the
"× ceiling" column); --bin takes the binaries from DIR (a2a-emulator, a2a-container,
jsonrpc_ceiling) instead of building them, to compare two builds.
(needs wrk, and h2load for the gRPC row: apt-get install wrk nghttp2-client). h2load sends
the one protobuf-framed SendMessageRequest over HTTP/2 (gRPC's framing); it gives a mean
and a maximum latency, shown in the p50 and p99 columns of that row, and an answer counts
as a result when the response carried a message (a refused call has none: its status is
in the trailers alone). On a shared 2-core machine runs swing by ±20%: --rounds
repeats every target in turn and reports the median round, --pin puts the server on CPU 0
and wrk (one thread) on CPU 1 (taskset), which steadies the CPU figure.
"""

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TICKS = os.sysconf("SC_CLK_TCK")
PIN = False


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def peak_rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def first_answer(port, body, headers, path="/", expect=b'"result"', deadline=10.0):
    """Seconds until a POST to `path` is answered with `expect` in it, polling from now."""
    start = time.monotonic()
    while time.monotonic() - start < deadline:
        try:
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}{path}", data=body.encode(), headers=headers
            )
            with urllib.request.urlopen(request, timeout=1) as response:
                if expect in response.read():
                    return time.monotonic() - start
        except OSError:
            time.sleep(0.001)
    raise SystemExit(f"no answer on port {port} within {deadline}s")


def pinned(cpu, command):
    return ["taskset", "-c", str(cpu), *command] if PIN else command


def wrk(port, seconds, connections, version):
    env = dict(os.environ, A2A_LOAD_VERSION=version)
    output = subprocess.run(
        pinned(1, ["wrk", "-t1" if PIN else "-t2", f"-c{connections}", f"-d{seconds}s", "--latency",
         "-s", os.path.join(ROOT, "scripts", "load.lua"), f"http://127.0.0.1:{port}/"]),
        env=env, capture_output=True, text=True, check=True,
    ).stdout
    total = int(re.search(r"(\d+) requests in", output).group(1))
    failures = int(re.search(r"non-result answers: (\d+)", output).group(1))

    def latency(label):
        value, unit = re.search(rf"{label}\s+([\d.]+)(us|ms|s)", output).groups()
        return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]

    return {
        "requests": total,
        "failures": failures,
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)),
        "p50": latency("50%"),
        "p99": latency("99%"),
    }


# SendMessageRequest{message: {messageId: "m", role: ROLE_USER, parts: [{text: "hello"}]}}
# in protobuf (a2a.proto's field numbers), after gRPC's 5-byte message prefix.
GRPC_SEND = bytes.fromhex("0000000010" "120e" "0a016d" "2001" "2a07" "0a0568656c6c6f")


def h2load(port, seconds, connections):
    def run(*limits):
        with tempfile.NamedTemporaryFile(suffix=".bin") as body:
            body.write(GRPC_SEND)
            body.flush()
            output = subprocess.run(
                pinned(1, ["h2load", *limits, "-m1", "-d", body.name,
                           "-H", "content-type: application/grpc", "-H", "te: trailers",
                           f"http://127.0.0.1:{port}/lf.a2a.v1.A2AService/SendMessage"]),
                capture_output=True, text=True, check=True,
            ).stdout
        done = int(re.search(r"requests: \d+ total, \d+ started, (\d+) done", output).group(1))
        data = int(re.search(r"\(\d+\) headers \([^)]*\), [\d.]+\w* \((\d+)\) data",
                             output).group(1))
        return output, done, data

    # One call first: the size of an answered task (a refused call has no message, its
    # status is in the trailers), so the run's answers are counted from the bytes received.
    _, _, one = run("-n1", "-c1")
    output, done, data = run("-t1" if PIN else "-t2", f"-c{connections}", f"--duration={seconds}")

    def latency(field):
        value, unit = re.findall(r"time for request:\s+([\d.]+)(us|ms|s)\s+([\d.]+)(us|ms|s)"
                                 r"\s+([\d.]+)(us|ms|s)", output)[0][field * 2:field * 2 + 2]
        return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]

    # Answers differ by a few bytes (ids, timestamps): more than 1% missing is a failure.
    missing = done - round(data / one) if one > 5 else done
    return {
        "requests": done,
        "failures": missing if missing > done // 100 else 0,
        "rps": float(re.search(r"finished in [\d.]+\w+, ([\d.]+) req/s", output).group(1)),
        "p50": latency(2),
        "p99": latency(1),
    }


class OtlpSink:
    """An OTLP/HTTP receiver that answers every export at once and counts them: where the
    telemetry rows' container exports its spans."""

    def __init__(self):
        import http.server
        import threading
        sink = self
        self.exports = 0

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                sink.exports += 1
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


def measure(name, command, version, seconds, connections, logs=False, extra_env=None):
    port = free_port()
    path, expect = "/", b'"result"'
    if version == "rest":
        body = '{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hello"}]}}'
        path, expect = "/message:send", b'"task"'
    elif version in ("1.0", "grpc"):
        body = ('{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m",'
                '"role":"ROLE_USER","parts":[{"text":"hello"}]}}}')
    else:
        body = ('{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message",'
                '"messageId":"m","role":"user","parts":[{"kind":"text","text":"hello"}]}}}')
    headers = {"Content-Type": "application/json",
               "A2A-Version": "1.0" if version in ("rest", "grpc") else version}
    grpc_port = free_port()
    env_grpc = {"A2A_GRPC_PORT": str(grpc_port), "A2A_BINDINGS": "jsonrpc,grpc"}
    env = dict(os.environ, RUST_LOG="warn")
    if version == "grpc":
        # Started once JSON-RPC answers (the same process serves both).
        env.update(env_grpc)
    if logs:
        env.pop("RUST_LOG")
    env.update(extra_env or {})
    log = tempfile.TemporaryFile() if logs else subprocess.DEVNULL
    process = subprocess.Popen(pinned(0, command(port)), stdout=subprocess.DEVNULL,
                               stderr=log, env=env)
    try:
        startup = first_answer(port, body, headers, path, expect)
        before = cpu_seconds(process.pid)
        if version == "grpc":
            result = h2load(grpc_port, seconds, connections)
        else:
            result = wrk(port, seconds, connections, version)
        used = cpu_seconds(process.pid) - before
        result.update(
            name=name,
            startup_ms=startup * 1000,
            cpu_us=used * 1e6 / max(result["requests"], 1),
            rss_mib=peak_rss_kib(process.pid) / 1024,
        )
    finally:
        process.terminate()
        process.wait(timeout=10)
    if logs:
        # The server has stopped, its queued lines written: count them.
        log.seek(0)
        result["log_lines"] = sum(1 for _ in log)
        log.close()
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--pin", action="store_true")
    parser.add_argument("--only", default="")
    parser.add_argument("--bin", default="")
    args = parser.parse_args()
    if not shutil.which("wrk"):
        sys.exit("wrk is required: apt-get install wrk")
    if args.pin:
        if not shutil.which("taskset") or (os.cpu_count() or 1) < 2:
            sys.exit("--pin needs taskset and two CPUs")
        global PIN
        PIN = True
    if args.bin:
        release = examples = os.path.abspath(args.bin)
    else:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "a2a-lambda-emulator", "--bin",
                        "a2a-emulator", "--example", "jsonrpc_ceiling"], cwd=ROOT, check=True)
        release = os.path.join(ROOT, "target", "release")
        # The container with telemetry compiled in, kept beside the one without.
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "a2a-lambda-server",
                        "--features", "grpc,otel", "--bin", "a2a-container"], cwd=ROOT, check=True)
        shutil.copy(os.path.join(release, "a2a-container"),
                    os.path.join(release, "a2a-container-otel"))
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "a2a-lambda-server",
                        "--features", "grpc", "--bin", "a2a-container"], cwd=ROOT, check=True)
        examples = os.path.join(release, "examples")
    ceiling = lambda port: [os.path.join(examples, "jsonrpc_ceiling"), str(port)]
    def emulator(*extra):
        return lambda port: [os.path.join(release, "a2a-emulator"), "--port", str(port),
                             "--agent", "echo", "--rate-limit", "0", *extra]

    # `env` execs the binary in its own process, so the pid measured is the container's.
    container = lambda port: ["env", f"PORT={port}", "A2A_HOST=127.0.0.1", "A2A_AGENT=echo",
                              os.path.join(release, "a2a-container")]

    container_otel = lambda port: ["env", f"PORT={port}", "A2A_HOST=127.0.0.1",
                                   "A2A_AGENT=echo", os.path.join(release, "a2a-container-otel")]

    targets = [("ceiling (axum+serde_json echo)", ceiling, "0.3", False)]
    fronts = [("front", emulator()), ("front, inspector off", emulator("--inspector", "off"))]
    for label, command in [("container", container), *fronts]:
        for version, method in [("0.3", "message/send"), ("1.0", "SendMessage")]:
            targets.append((f"{label} v{version} {method}", command, version, False))
        if label == "container":
            targets.append(("container REST message:send", command, "rest", False))
            if shutil.which("h2load"):
                targets.append(("container gRPC SendMessage", command, "grpc", False))
    # `make run`'s default logging (info) against the RUST_LOG=warn rows above.
    targets.append(("container v0.3, logs on", container, "0.3", True))
    targets.append(("front v0.3, logs on", emulator(), "0.3", True))
    # Telemetry (feature `otel`): compiled out is the "container v1.0" row above; compiled
    # in but off (no OTEL_* variable); on, every span sampled and exported to a local sink.
    sink = OtlpSink() if os.path.exists(os.path.join(release, "a2a-container-otel")) else None
    if sink:
        targets.append(("container v1.0, otel in, off", container_otel, "1.0", False))
        targets.append(("container v1.0, otel on", container_otel, "1.0", False))
    otel_on = {"OTEL_EXPORTER_OTLP_ENDPOINT": sink.url if sink else "",
               "OTEL_TRACES_SAMPLER": "always_on", "OTEL_METRIC_EXPORT_INTERVAL": "1000"}
    targets = [target for target in targets
               if target[0].startswith("ceiling") or args.only in target[0]]
    runs = {name: [] for name, *_ in targets}
    for _ in range(max(args.rounds, 1)):
        for name, command, version, logs in targets:
            extra = otel_on if name.endswith("otel on") else None
            runs[name].append(
                measure(name, command, version, args.seconds, args.connections, logs, extra))
    # The median round of each target, by CPU per request.
    rows = [sorted(runs[name], key=lambda run: run["cpu_us"])[len(runs[name]) // 2]
            for name, *_ in targets]
    how = "server on CPU 0, wrk -t1 on CPU 1" if PIN else "wrk -t2 on the same machine"
    print(f"\n{args.connections} connections, {args.seconds}s each, {how}, "
          f"median of {max(args.rounds, 1)} round(s)\n")
    print(f"{'target':34} {'req/s':>9} {'p50 ms':>7} {'p99 ms':>7} {'CPU µs/req':>11} "
          f"{'× ceiling':>9} {'peak RSS MiB':>12} {'startup ms':>10} {'errors':>6} "
          f"{'log lines':>10}")
    base = rows[0]["cpu_us"]
    for row in rows:
        print(f"{row['name']:34} {row['rps']:9.0f} {row['p50']:7.2f} {row['p99']:7.2f} "
              f"{row['cpu_us']:11.1f} {row['cpu_us'] / base:9.2f} {row['rss_mib']:12.1f} "
              f"{row['startup_ms']:10.1f} {row['failures']:6d} "
              f"{row['log_lines'] if 'log_lines' in row else '':>10}")
    if any(row["failures"] for row in rows):
        sys.exit("some answers were not results (JSON-RPC results, REST or gRPC tasks)")


if __name__ == "__main__":
    main()
