#!/usr/bin/env bash
# The A2A interop kit (a2aproject/a2a-itk, at the commit below) with our agent
# (tests/itk, the kit's mounted `current` agent) and the kit's Python and TypeScript
# reference agents: the kit runs each scenario of scenarios.py, which prints the matrix of
# what passed across which pair of SDKs. Exits non-zero when a scenario with our agent
# fails (the reference agents' own pair is shown, not judged).
#
# Installs what it needs when missing, all under the kit's checkout (ITK_DIR, default
# .itk at the repository root, gitignored; outside every crate's folder, so cargo takes the
# kit's Rust agent for a crate of its own): the kit (cloned from ITK_REPO), its runner's
# and Python agent's packages (PyPI, with uv from PyPI into .venv-tools), its TypeScript
# agent's (npm). Needs git, python3 (3.11+) with venv, node 20+ with npm, cargo, and fuser
# (psmisc: the kit frees its ports with it); it names what is missing and stops.
#
# ITK_PAIRS (python,ts,python-ts; rust adds the kit's Rust agent on a2a-rs, built on
# first use: about five minutes on two cores, and protoc), ITK_PROTOCOLS
# (jsonrpc,http_json,grpc) and ITK_MODES (send,stream,push,resubscribe) choose the
# scenarios. The kit's and every agent's logs are in $ITK_DIR/logs/.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

# The kit's commit: scenarios, runner and reference agents as of 2026-07-13.
ITK_COMMIT=cd1537f4035229839dd53a8a9fb49c1c4137ed12
ITK_REPO="${ITK_REPO:-https://github.com/a2aproject/a2a-itk}"
kit="${ITK_DIR:-$root/.itk}"
tools="${TOOLS_VENV:-$root/.venv-tools}"
case "$tools" in /*) ;; *) tools="$root/$tools" ;; esac
UV_VERSION=0.13.8

missing() {
    echo "itk: $1 is missing: $2" >&2
    exit 1
}
command -v git >/dev/null || missing git "install git (apt-get install git)"
command -v python3 >/dev/null || missing python3 "install Python 3.11 or later with venv (apt-get install python3 python3-venv)"
python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || missing "Python 3.11+" "the kit's runner needs Python 3.11 or later (python3 is $(python3 --version 2>&1))"
command -v node >/dev/null && command -v npm >/dev/null || missing "node/npm" "install Node.js 20 or later with npm (apt-get install nodejs npm)"
command -v fuser >/dev/null || missing fuser "install psmisc (apt-get install psmisc): the kit frees its ports with fuser"
command -v cargo >/dev/null || missing cargo "install Rust (rustup.rs)"

# The kit at its commit.
if [ "$(git -C "$kit" rev-parse HEAD 2>/dev/null || true)" != "$ITK_COMMIT" ]; then
    if [ ! -d "$kit/.git" ]; then
        echo "itk: cloning the kit from $ITK_REPO into $kit"
        git clone -q "$ITK_REPO" "$kit" || {
            rm -rf "$kit"
            missing "the kit" "could not clone $ITK_REPO: clone it into $kit yourself, or set ITK_REPO to a copy of it"
        }
    fi
    git -C "$kit" cat-file -e "$ITK_COMMIT^{commit}" 2>/dev/null || git -C "$kit" fetch -q origin \
        || missing "the kit's commit $ITK_COMMIT" "could not fetch it into $kit"
    git -C "$kit" checkout -q --detach "$ITK_COMMIT"
fi

# uv, from PyPI: the kit starts its Python agent and notification server with `uv run`.
if [ "$("$tools/bin/uv" --version 2>/dev/null | cut -d' ' -f2)" != "$UV_VERSION" ]; then
    echo "itk: installing uv $UV_VERSION into $tools"
    [ -x "$tools/bin/python" ] || python3 -m venv "$tools" || missing venv "python3 -m venv failed (apt-get install python3-venv)"
    "$tools/bin/pip" install -q --disable-pip-version-check "uv==$UV_VERSION"
fi
uv="$tools/bin/uv"

# A Python project of the kit's, its .venv filled from PyPI with our pins (the kit's own
# lock names a2a-sdk by git tag); `uv run` then uses it as it is (UV_NO_SYNC below).
python_env() {
    local project="$1" requirements="$2"
    if ! cmp -s "$requirements" "$project/.venv/.itk-requirements.txt"; then
        echo "itk: installing $(basename "$requirements" .txt) into $project/.venv"
        "$uv" venv -q --allow-existing --python python3 "$project/.venv"
        "$uv" pip install -q --python "$project/.venv/bin/python" -r "$requirements"
        cp "$requirements" "$project/.venv/.itk-requirements.txt"
    fi
}
python_env "$kit" "$here/requirements-runner.txt"
python_env "$kit/agents/python/v10" "$here/requirements-python-v10.txt"

# The TypeScript agent: its lock's runtime packages (its dev tools regenerate its protos,
# which the kit ships generated).
ts="$kit/agents/ts/v10"
if [ ! -f "$ts/node_modules/.package-lock.json" ] || [ "$ts/package-lock.json" -nt "$ts/node_modules/.package-lock.json" ]; then
    echo "itk: npm ci in $ts"
    (cd "$ts" && npm ci --omit=dev --no-audit --no-fund --loglevel=error)
fi

pairs="${ITK_PAIRS:-python,ts,python-ts}"

# The kit's Rust agent (a2a-rs), only when asked for: built with its own lock into its own
# target directory, where the kit looks for it.
if [[ ",$pairs," == *,rust,* ]]; then
    command -v protoc >/dev/null || missing protoc "the kit's Rust agent compiles its protos with protoc (apt-get install protobuf-compiler)"
    rust="$kit/agents/rust/v10"
    if [ ! -x "$rust/target/release/itk-rust-v10-agent" ]; then
        echo "itk: building the kit's Rust agent (a2a-rs; about five minutes the first time)"
        (cd "$rust" && CARGO_TARGET_DIR="$rust/target" cargo build -q --release --locked)
    fi
fi

# Our agent, mounted where the kit looks for its `current` agent: a Cargo.toml and a
# binary named itk-* in target/release (the kit would build it there; we build it here).
echo "itk: building our agent (a2a-itk-agent)"
(cd "$root" && cargo build -q --locked -p a2a-itk-agent)
agent="${CARGO_TARGET_DIR:-$root/target}/debug/itk-a2a-lambda-agent"
case "$agent" in /*) ;; *) agent="$root/$agent" ;; esac
mount="$kit/agents/repo/itk"
mkdir -p "$mount/target/release"
ln -sfn "$here/Cargo.toml" "$mount/Cargo.toml"
ln -sfn "$agent" "$mount/target/release/itk-current-agent"

mkdir -p "$kit/logs"
results="$kit/logs/results.json"
echo "itk: running the scenarios (logs in $kit/logs/)"
cd "$kit"
# The kit's agents log to $kit/logs/ at DEBUG (else the Python agent writes to this
# terminal); `uv run` uses the prepared environments offline, without syncing them.
PATH="$tools/bin:$PATH" PYTHONPATH="$kit" ITK_LOG_LEVEL=DEBUG UV_NO_SYNC=1 UV_OFFLINE=1 \
    "$kit/.venv/bin/python" "$here/scenarios.py" \
    --pairs "$pairs" \
    --protocols "${ITK_PROTOCOLS:-jsonrpc,http_json,grpc}" \
    --modes "${ITK_MODES:-send,stream,push,resubscribe}" \
    --results "$results" --log "$kit/logs/runner.log"
