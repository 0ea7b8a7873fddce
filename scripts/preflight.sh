#!/usr/bin/env bash
# What `make test` needs besides the code, checked before anything is built (its first
# step), so that a missing tool stops the run at once instead of after the long steps:
#   - Rust 1.94.1 or newer with rustfmt and clippy (fmt-check, lint; rustup adds the two);
#   - a C compiler, `cc` (rustc links with it; aws-lc, under the TLS and auth features, is C);
#   - python3 3.10 or newer that can make a venv (the PyPI tools in .venv-tools: moto for
#     the DynamoDB tests, cargo-lambda, cfn-lint; the official Python client in interop);
#   - node 20 or newer with npm (the official JS client in interop, the browser test);
#   - Chromium, /usr/bin/chromium or $CHROMIUM (the inspector's browser test);
#   - make, and `kill` as a program (tests stop the processes they start).
# Run as root where apt-get is, it installs the Debian/Ubuntu packages that are missing;
# rustup, where it is, adds rustfmt and clippy; it makes the tools venv. Whatever is still
# missing is named, with the command that installs it, and the script exits 1.
# A2A_PREFLIGHT_INSTALL=no only checks. TOOLS_VENV: the venv to make (.venv-tools).
set -euo pipefail
cd "$(dirname "$0")/.."

tools_venv="${TOOLS_VENV:-.venv-tools}"
chromium="${CHROMIUM:-/usr/bin/chromium}"
install="${A2A_PREFLIGHT_INSTALL:-yes}"

have() { command -v "$1" >/dev/null 2>&1; }

# at_least VERSION MAJOR MINOR: whether VERSION (digits and dots, anything after ignored)
# is MAJOR.MINOR or newer.
at_least() {
    local major minor
    IFS=. read -r major minor _ <<<"$1"
    major="${major//[!0-9]/}"
    minor="${minor//[!0-9]/}"
    [ -n "$major" ] || return 1
    [ "$major" -gt "$2" ] || { [ "$major" -eq "$2" ] && [ "${minor:-0}" -ge "$3" ]; }
}

# One pass over the needs. Fills `missing` (a line each: what, what for, how) and
# `packages` (the Debian packages that would provide it).
check() {
    missing=()
    packages=()
    local version
    if ! have make; then
        missing+=("make: runs the steps of make test")
        packages+=(make)
    fi
    if ! have cargo; then
        missing+=("cargo, Rust 1.94.1 or newer: install it with rustup, https://rustup.rs")
    else
        version="$(cargo --version 2>/dev/null | awk '{print $2}')"
        if ! at_least "$version" 1 94; then
            missing+=("Rust 1.94.1 or newer (the workspace's rust-version), found cargo $version: rustup update")
        fi
        if ! cargo fmt --version >/dev/null 2>&1; then
            missing+=("rustfmt (make fmt-check): rustup component add rustfmt")
        fi
        if ! cargo clippy --version >/dev/null 2>&1; then
            missing+=("clippy (make lint): rustup component add clippy")
        fi
    fi
    if ! have cc; then
        missing+=("cc, a C compiler: rustc links with it")
        packages+=(gcc libc6-dev)
    fi
    if [ -z "$(type -P kill)" ]; then
        missing+=("kill, the program: tests stop the processes they start with it")
        packages+=(procps)
    fi
    if ! have python3; then
        missing+=("python3 3.10 or newer, with venv: the PyPI tools in $tools_venv (moto, cargo-lambda, cfn-lint) and the interop tests")
        packages+=(python3 python3-venv)
    else
        version="$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
        if ! at_least "$version" 3 10; then
            missing+=("python3 3.10 or newer (found $version): the interop tests' a2a-sdk needs it")
        elif [ ! -x "$tools_venv/bin/pip" ]; then
            if ! make_venv; then
                missing+=("python3-venv: 'python3 -m venv' fails here, and the PyPI tools (moto, cargo-lambda, cfn-lint) and the interop tests install into venvs")
                packages+=(python3-venv)
            fi
        fi
    fi
    if ! have node; then
        missing+=("node 20 or newer, with npm: the official JS client (tests/interop) and the browser test (tests/browser)")
        packages+=(nodejs npm)
    else
        version="$(node --version 2>/dev/null)"
        if ! at_least "${version#v}" 20 0; then
            missing+=("node 20 or newer (found $version): the official JS client and the browser test need it; https://nodejs.org/en/download (Debian 12's own nodejs is 18)")
        fi
        if ! have npm; then
            missing+=("npm: installs the JS client and the browser test's driver")
            packages+=(npm)
        fi
    fi
    if [ ! -x "$chromium" ]; then
        missing+=("Chromium at $chromium (CHROMIUM=path names another): the inspector's browser test (tests/browser) drives it headless")
        packages+=(chromium)
    fi
}

# The tools venv, made once (the Makefile installs the PyPI tools into it). A failed
# attempt leaves nothing behind.
make_venv() {
    if python3 -m venv "$tools_venv" >/dev/null 2>&1 && [ -x "$tools_venv/bin/pip" ]; then
        return 0
    fi
    rm -rf "$tools_venv"
    return 1
}

check
if [ ${#missing[@]} -gt 0 ] && [ "$install" != no ]; then
    if [ ${#packages[@]} -gt 0 ] && [ "$(id -u)" -eq 0 ] && have apt-get; then
        echo "preflight: installing ${packages[*]} (apt-get)"
        apt-get update -qq
        # Chromium without its recommends: desktop services the headless test does not use.
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}"
    fi
    if have rustup && have cargo; then
        cargo fmt --version >/dev/null 2>&1 || rustup component add rustfmt
        cargo clippy --version >/dev/null 2>&1 || rustup component add clippy
    fi
    check
fi

if [ ${#missing[@]} -gt 0 ]; then
    {
        echo "preflight: make test needs what this machine lacks:"
        printf '  - %s\n' "${missing[@]}"
        if [ ${#packages[@]} -gt 0 ]; then
            echo "On Debian or Ubuntu:"
            echo "  sudo apt-get install -y --no-install-recommends ${packages[*]}"
        fi
        echo "Then run make test again (scripts/preflight.sh checks alone)."
    } >&2
    exit 1
fi
echo "preflight: $(cargo --version), python $(python3 -c 'import platform; print(platform.python_version())'), node $(node --version), $("$chromium" --version 2>/dev/null || echo "$chromium")"
