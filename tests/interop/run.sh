#!/usr/bin/env bash
# The official A2A clients, unmodified, against a2a-emulator (echo agent):
# Python a2a-sdk (python/) and JS @a2a-js/sdk (js/), each on the v1.0 and v0.3 wire,
# push-notification configs included (python/test_push_configs.py, js/push_configs.test.js).
# Then the reverse: our `a2a` CLI against echo agents built on the official SDKs'
# servers (python/echo_server.py, js/echo_server.js; python/test_our_cli.py starts them).
# And the Python SDK's echo agent run once per session by `a2a-emulator --agent-cmd`
# (python/test_agent_cmd.py starts that emulator itself). And both official clients with a
# bearer token from `a2a-emulator token` through `--auth jwt` (python/test_jwt_auth.py,
# js/jwt_auth.test.js start their own emulators).
# And the official Rust SDK (a2a-lf, a2aproject/a2a-rs; rust/, its own crate and lock outside
# the workspace): its client against a2a-container (both bindings) and the emulator's
# invocation URL, and our CLI against an echo agent on its server.
# And AWS's own SDKs for Python and JS, boto3's bedrock-agentcore client and
# @aws-sdk/client-bedrock-agentcore, through the emulator as through AgentCore
# (python/test_boto3.py, js/aws_sdk.test.js start their own emulators).
# And OpenTelemetry's own Python OTLP/HTTP exporters into the emulator's trace receiver,
# directly and from an agent run by --agent-cmd (python/test_otlp_exporter.py).
# And HTTP+JSON: both official clients told to prefer it against one a2a-container (echo
# agent, both bindings; python/test_rest_client.py, js/rest_client.test.js), and our CLI
# with --binding http+json against the SDK echo servers' REST routes (test_our_cli.py).
# And trace context: the official Python client's `traceparent` continued by the emulator
# and its agent, read back from an OTLP receiver (python/test_trace_context.py).
# And gRPC (a2a-container built with a2a-lambda-server's `grpc` feature, on a port of its
# own): the official Python client with a2a-sdk's grpc extra (python/test_grpc_client.py)
# and the official Rust SDK's a2a-grpc transport (rust/tests/official_client.rs).
# Needs python3 (3.10+) with venv + pip, node 20+ with npm, and cargo.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
python="${PYTHON:-python3}"
startup_timeout="${A2A_INTEROP_STARTUP_TIMEOUT:-60}" # seconds for the listening line

echo "interop: building a2a-emulator and a2a-container"
# The workspace's binaries with the features `cargo test --workspace` builds with (no
# dependency is compiled a second way, as `-p a2a-lambda-emulator` alone would).
(cd "$root" && cargo build -q --workspace --bins --examples --features a2a-lambda-server/grpc,a2a-lambda-emulator/otel,a2a-agent/otel)
emulator="${CARGO_TARGET_DIR:-$root/target}/debug/a2a-emulator"
container="${CARGO_TARGET_DIR:-$root/target}/debug/a2a-container"

# Python venv: (re)install whenever requirements.txt differs from the last install.
venv="$here/.venv"
if ! cmp -s "$here/python/requirements.txt" "$venv/.installed-requirements.txt"; then
    echo "interop: installing Python requirements into $venv"
    if [ ! -x "$venv/bin/python" ] && ! "$python" -m venv "$venv"; then
        rm -rf "$venv"
        echo "interop: '$python -m venv' failed (on Debian: apt-get install python3-venv)" >&2
        exit 1
    fi
    "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$here/python/requirements.txt"
    cp "$here/python/requirements.txt" "$venv/.installed-requirements.txt"
fi

# JS: npm ci when node_modules is missing or older than the lock file.
if [ ! -f "$here/js/node_modules/.package-lock.json" ] \
    || [ "$here/js/package-lock.json" -nt "$here/js/node_modules/.package-lock.json" ]; then
    echo "interop: npm ci"
    (cd "$here/js" && npm ci --no-audit --no-fund --loglevel=error)
fi

# Start the emulator on a free port; its stdout comes through a FIFO so we read
# the "listening on URL" line as soon as it is printed (or EOF if it dies).
work="$(mktemp -d)"
emulator_pid=""
container_pid=""
cleanup() {
    for pid in "$emulator_pid" "$container_pid"; do
        if [ -n "$pid" ]; then
            kill "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
        fi
    done
    rm -rf "$work"
}
trap cleanup EXIT
mkfifo "$work/stdout"
# (card URL overrides unset: the tests expect the card to name the bound address)
NO_COLOR=1 env -u A2A_PUBLIC_URL -u AGENTCORE_RUNTIME_URL \
    "$emulator" --host 127.0.0.1 --port 0 --agent echo --rate-limit 0 >"$work/stdout" 2>"$work/emulator.log" &
emulator_pid=$!
exec 3<"$work/stdout"
url=""
while IFS= read -r -t "$startup_timeout" line <&3; do
    echo "$line" >>"$work/emulator.log"
    if [[ $line =~ listening\ on\ (http://[^ ]+) ]]; then
        url="${BASH_REMATCH[1]}"
        break
    fi
done
if [ -z "$url" ]; then
    echo "interop: the emulator exited or did not report its address within ${startup_timeout}s" >&2
    cat "$work/emulator.log" >&2
    exit 1
fi
cat <&3 >>"$work/emulator.log" & # keep draining stdout so the emulator never blocks on it
echo "interop: emulator at $url"
export A2A_EMULATOR_URL="$url"

# One a2a-container (echo agent) for every HTTP+JSON interop test, on a free port, its
# stdout read through a FIFO for the "listening on URL" line as the emulator's is. Both
# bindings, JSON-RPC first: the clients' own preference must pick HTTP+JSON.
mkfifo "$work/container.stdout"
NO_COLOR=1 PORT=0 A2A_HOST=127.0.0.1 A2A_AGENT=echo A2A_BINDINGS=jsonrpc,http+json,grpc A2A_GRPC_PORT=0 \
    env -u A2A_PUBLIC_URL -u AGENTCORE_RUNTIME_URL \
    "$container" >"$work/container.stdout" 2>"$work/container.log" &
container_pid=$!
exec 4<"$work/container.stdout"
container_url=""
while IFS= read -r -t "$startup_timeout" line <&4; do
    if [[ $line =~ listening\ on\ (http://[^ ]+) ]]; then
        container_url="${BASH_REMATCH[1]}"
        break
    fi
done
if [ -z "$container_url" ]; then
    echo "interop: a2a-container exited or did not report its address within ${startup_timeout}s" >&2
    cat "$work/container.log" >&2
    exit 1
fi
cat <&4 >/dev/null &
echo "interop: a2a-container at $container_url"
export A2A_CONTAINER_URL="$container_url"

status=0
echo "interop: Python a2a-sdk"
(cd "$here/python" && "$venv/bin/python" -m pytest -q -p no:cacheprovider test_official_client.py) || status=1
echo "interop: official Python client push-config calls and a delivery (both versions)"
(cd "$here/python" && "$venv/bin/python" -m pytest -q -p no:cacheprovider test_push_configs.py) || status=1
echo "interop: Python a2a-sdk with and without the AgentCore session header"
(cd "$here/python" && "$venv/bin/python" -m pytest -q -p no:cacheprovider test_session_header.py) || status=1
echo "interop: Python a2a-sdk agent run per session by a2a-emulator --agent-cmd"
(cd "$here/python" && A2A_EMULATOR_BIN="$emulator" "$venv/bin/python" -m pytest -q -p no:cacheprovider test_agent_cmd.py) || status=1
echo "interop: Python a2a-sdk with a token from a2a-emulator token, through --auth jwt"
(cd "$here/python" && A2A_EMULATOR_BIN="$emulator" "$venv/bin/python" -m pytest -q -p no:cacheprovider test_jwt_auth.py) || status=1
echo "interop: AWS's boto3 (bedrock-agentcore) against the emulator: both versions, streams, refusals as modelled exceptions, retries, StopRuntimeSession"
(cd "$here/python" && A2A_EMULATOR_BIN="$emulator" "$venv/bin/python" -m pytest -q -p no:cacheprovider test_boto3.py) || status=1
echo "interop: the official Python client's traceparent continued by the emulator and its agent (OTLP JSON)"
(cd "$here/python" && A2A_EMULATOR_BIN="$emulator" "$venv/bin/python" -m pytest -q -p no:cacheprovider test_trace_context.py) || status=1
echo "interop: OpenTelemetry's Python OTLP exporters into the emulator's receiver"
(cd "$here/python" && A2A_EMULATOR_BIN="$emulator" "$venv/bin/python" -m pytest -q -p no:cacheprovider test_otlp_exporter.py) || status=1
echo "interop: official Python client over HTTP+JSON and gRPC against a2a-container"
(cd "$here/python" && "$venv/bin/python" -m pytest -q -p no:cacheprovider test_rest_client.py test_grpc_client.py) || status=1
echo "interop: JS @a2a-js/sdk and AWS's @aws-sdk/client-bedrock-agentcore (jwt_auth.test.js and aws_sdk.test.js start their own emulators; rest_client.test.js uses a2a-container)"
(cd "$here/js" && A2A_EMULATOR_BIN="$emulator" node --test) || status=1

echo "interop: the official Rust SDK (a2a-lf): its client against a2a-container and the emulator, our CLI against its server"
(cd "$root" && cargo build -q --workspace --bins --examples --features a2a-lambda-server/grpc,a2a-lambda-emulator/otel,a2a-agent/otel)
A2A_CLI="${CARGO_TARGET_DIR:-$root/target}/debug/a2a" A2A_CONTAINER_BIN="$container" A2A_EMULATOR_BIN="$emulator" \
    CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}" \
    cargo test -q --locked --manifest-path "$here/rust/Cargo.toml" || status=1

echo "interop: our a2a CLI against the official Python and JS SDK servers"
(cd "$root" && cargo build -q --workspace --bins --examples --features a2a-lambda-server/grpc,a2a-lambda-emulator/otel,a2a-agent/otel)
export A2A_CLI="${CARGO_TARGET_DIR:-$root/target}/debug/a2a"
(cd "$here/python" && "$venv/bin/python" -m pytest -q -p no:cacheprovider test_our_cli.py) || status=1

if [ "$status" -ne 0 ]; then
    echo "interop: FAILED; emulator log:" >&2
    cat "$work/emulator.log" >&2
    echo "interop: a2a-container log:" >&2
    cat "$work/container.log" >&2
fi
exit "$status"
