"""An emulator of its own for a test that needs flags the shared one lacks: started from
A2A_EMULATOR_BIN (tests/interop/run.sh sets it) on a free port, stopped after. Tests that
use it are skipped, saying why, when the variable is not set."""

import contextlib
import os
import queue
import subprocess
import threading
import time

import pytest

EMULATOR = os.environ.get('A2A_EMULATOR_BIN', '')
STARTUP_TIMEOUT = float(os.environ.get('A2A_INTEROP_STARTUP_TIMEOUT', '60'))
needs_emulator = pytest.mark.skipif(
    not EMULATOR, reason='A2A_EMULATOR_BIN not set (run tests/interop/run.sh)'
)


def clean_env() -> dict[str, str]:
    """This environment without the variables that would change the emulator's card."""
    env = {k: v for k, v in os.environ.items() if not k.startswith('A2A_') and k != 'AGENTCORE_RUNTIME_URL'}
    env['NO_COLOR'] = '1'
    return env


@contextlib.contextmanager
def emulator(*args: str, env: dict[str, str] | None = None):
    """The base URL (no trailing slash) of an emulator started with `args`, with `env`
    added to its environment."""
    proc = subprocess.Popen(
        [EMULATOR, '--host', '127.0.0.1', '--port', '0', '--rate-limit', '0', *args],
        env={**clean_env(), **(env or {})}, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(l) for l in proc.stdout], daemon=True).start()
    url = ''
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while not url and time.monotonic() < deadline and proc.poll() is None:
        try:
            line = lines.get(timeout=0.2)
        except queue.Empty:
            continue
        if line.startswith('a2a-emulator listening on '):
            url = line.split()[3].rstrip('/')
    try:
        assert url, 'the emulator did not start'
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)
