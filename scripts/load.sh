#!/usr/bin/env bash
# Load test of the emulator on loopback: message/send against the echo agent, with wrk.
# Usage: scripts/load.sh [seconds] [connections]   (A2A_LOAD_VERSION=1.0 for SendMessage)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
connections=${2:-32}
port=${A2A_LOAD_PORT:-9400}

command -v wrk >/dev/null || { echo "wrk is required (apt-get install wrk)" >&2; exit 1; }
cargo build --release -q -p a2a-emulator
RUST_LOG=warn ./target/release/a2a-emulator --port "$port" --agent echo >/dev/null &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  curl -fs "http://127.0.0.1:$port/ping" >/dev/null 2>&1 && break
  sleep 0.05
done
wrk -t2 -c"$connections" -d"${seconds}s" --latency -s scripts/load.lua "http://127.0.0.1:$port/"
