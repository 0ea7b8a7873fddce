#!/usr/bin/env bash
# The inspector's real-browser test: headless Chromium (Debian's `chromium` package;
# $CHROMIUM overrides /usr/bin/chromium) on the page of the real a2a-emulator binary: its
# invocations (inspector.test.js) and an invocation's trace as a waterfall (traces.test.js).
# Needs node 20+ with npm, and cargo. The screenshots land in target/inspector/.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
chromium="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
    echo "browser: no Chromium at $chromium (on Debian: apt-get install chromium)" >&2
    exit 1
fi
# The workspace's features, as `cargo test --workspace` builds them (nothing compiled twice).
(cd "$root" && cargo build -q --workspace --bins --examples)
target="${CARGO_TARGET_DIR:-$root/target}"
if [ ! -f "$here/node_modules/.package-lock.json" ] \
    || [ "$here/package-lock.json" -nt "$here/node_modules/.package-lock.json" ]; then
    (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
fi
cd "$here"
A2A_EMULATOR="$target/debug/a2a-emulator" CHROMIUM="$chromium" \
    INSPECTOR_SCREENSHOT="$target/inspector/inspector.png" node --test inspector.test.js traces.test.js
