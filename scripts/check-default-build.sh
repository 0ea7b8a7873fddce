#!/usr/bin/env bash
# The emulator binary as `make run` builds it, with the default features (no TLS, no
# inbound auth): it serves (GET /ping answers 200), and what needs a feature it was built
# without is refused at once, naming the feature, never ignored: --auth jwt, --auth sigv4,
# the token subcommand, an https --upstream; a webhook at an https URL is not tried, and
# the log says why.
# Usage: scripts/check-default-build.sh PATH/TO/a2a-emulator
set -euo pipefail

binary="${1:?usage: scripts/check-default-build.sh PATH/TO/a2a-emulator}"
work="$(mktemp -d)"
pid=""
# shellcheck disable=SC2329 # called by the EXIT trap
cleanup() {
    if [ -n "$pid" ]; then
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
failed=0

# The binary in a clean environment (no A2A_* from the caller's), bounded in time: one
# that ignored the flag would serve instead of exiting.
emulator() {
    env -i PATH="$PATH" HOME="$work" timeout 20 "$binary" "$@"
}

# refused FEATURE ARGS...: the binary exits with 1 and its error names FEATURE.
refused() {
    local feature="$1" output status=0
    shift
    output="$(emulator "$@" 2>&1 </dev/null)" || status=$?
    if [ "$status" -eq 1 ] && [[ $output == *"\`$feature\` feature"* ]]; then
        echo "default build: $* refused, naming the $feature feature"
    else
        echo "default build: $* should exit 1 naming the \`$feature\` feature; exit $status: $output" >&2
        failed=1
    fi
}

refused auth --port 0 --auth jwt
refused auth --port 0 --auth sigv4 --sigv4-credentials AKID:secret
refused auth token --sub someone
refused tls --port 0 --upstream https://agent.example.com

# Serves: the listening line gives the port, /ping answers 200.
emulator --host 127.0.0.1 --port 0 --agent echo >"$work/stdout" 2>"$work/stderr" &
pid=$!
port=""
for _ in $(seq 1 100); do
    if [[ $(cat "$work/stdout") =~ listening\ on\ http://127\.0\.0\.1:([0-9]+) ]]; then
        port="${BASH_REMATCH[1]}"
        break
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$port" ]; then
    echo "default build: the emulator did not say where it listens:" >&2
    cat "$work/stdout" "$work/stderr" >&2
    exit 1
fi
# request METHOD PATH [BODY]: the status line of the answer.
request() {
    local status_line=""
    exec 3<>"/dev/tcp/127.0.0.1/$port"
    printf '%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s' \
        "$1" "$2" "${#3}" "$3" >&3
    read -r -t 10 status_line <&3 || true
    exec 3<&-
    echo "$status_line"
}
status_line="$(request GET /ping "")"
if [[ $status_line == "HTTP/1.1 200"* ]]; then
    echo "default build: serves, GET /ping answers 200"
else
    echo "default build: GET /ping answered ${status_line:-nothing}" >&2
    failed=1
fi

# A task whose webhook is https: answered, the webhook not tried (no connection is
# made), the log naming the feature.
send='{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m-1","role":"user","parts":[{"kind":"text","text":"hi"}]},"configuration":{"blocking":true,"pushNotificationConfig":{"url":"https://1.1.1.1/hook"}}}}'
status_line="$(request POST / "$send")"
logged=""
for _ in $(seq 1 50); do
    if grep -q "https webhooks need TLS, which this build left out (the \`tls\` feature" "$work/stderr"; then
        logged=yes
        break
    fi
    sleep 0.1
done
if [[ $status_line == "HTTP/1.1 200"* ]] && [ -n "$logged" ]; then
    echo "default build: an https webhook is not tried, and the log names the tls feature"
else
    echo "default build: an https webhook: answer ${status_line:-none}, log:" >&2
    cat "$work/stderr" >&2
    failed=1
fi
exit "$failed"
