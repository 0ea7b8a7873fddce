"""a2a-emulator --agent-cmd in front of an agent on the official A2A Python SDK
(echo_server.py), reached with the official Python client through AWS's invocation URL.

The emulator runs the agent once per session, as AgentCore starts one microVM per
session: `sh -c` with PORT set to a free port. tests/interop/run.sh sets
A2A_EMULATOR_BIN to the emulator binary; this test starts its own emulator.
"""

import os
import queue
import shlex
import subprocess
import sys
import threading
import time
import uuid

from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.helpers import get_artifact_text, new_text_message
from a2a.types.a2a_pb2 import GetTaskRequest, Role, SendMessageRequest, TaskState

EMULATOR = os.environ.get('A2A_EMULATOR_BIN', '')
HERE = Path(__file__).resolve().parent
STARTUP_TIMEOUT = float(os.environ.get('A2A_INTEROP_STARTUP_TIMEOUT', '60'))
RUNTIME_ARN = 'arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/agent_cmd-0123456789'
SESSION_HEADER = 'X-Amzn-Bedrock-AgentCore-Runtime-Session-Id'
pytestmark = pytest.mark.skipif(
    not EMULATOR, reason='A2A_EMULATOR_BIN not set (run tests/interop/run.sh)'
)


class AgentCmdEmulator:
    """The emulator with `--agent-cmd` running echo_server.py, and what it logged."""

    def __init__(self) -> None:
        command = f'exec {shlex.quote(sys.executable)} {shlex.quote(str(HERE / "echo_server.py"))} "$PORT"'
        env = {
            name: value
            for name, value in os.environ.items()
            if not name.startswith('A2A_') and name not in ('AGENTCORE_RUNTIME_URL', 'PORT')
        }
        env['NO_COLOR'] = '1'
        self.proc = subprocess.Popen(
            [EMULATOR, '--host', '127.0.0.1', '--port', '0', '--rate-limit', '0',
             '--agent-startup-timeout', str(STARTUP_TIMEOUT), '--agent-cmd', command],
            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True,
        )
        self.log: list[str] = []
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._drain, args=(self.proc.stdout, lines.put), daemon=True).start()
        threading.Thread(target=self._drain, args=(self.proc.stderr, self.log.append), daemon=True).start()
        self.url = ''
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while not self.url and time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.2)
            except queue.Empty:
                if self.proc.poll() is not None:
                    break
                continue
            if line.startswith('a2a-emulator listening on '):
                assert 'agent command: ' in line, line
                self.url = line.split()[3].rstrip('/')
        if not self.url:
            self.stop()
            pytest.fail('the emulator did not start:\n' + '\n'.join(self.log))

    @staticmethod
    def _drain(stream, put) -> None:
        for line in stream:
            put(line.rstrip('\n'))

    def stop(self) -> int:
        """SIGTERM, as AgentCore and systemd stop it; it stops its agents first."""
        self.proc.terminate()
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()

    def wait_for_log(self, needle: str, timeout: float = 10) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [line for line in list(self.log) if needle in line]
            if found:
                return found[0]
            time.sleep(0.02)
        pytest.fail(f'no log line with {needle!r}:\n' + '\n'.join(self.log))


@pytest.fixture
def emulator():
    running = AgentCmdEmulator()
    try:
        yield running
    finally:
        assert running.stop() == 0, '\n'.join(running.log)


async def test_the_official_client_reaches_an_sdk_agent_run_per_session(emulator):
    invocation_url = f'{emulator.url}/runtimes/{quote(RUNTIME_ARN, safe="")}/invocations/'
    session = f'agent-cmd-session-{uuid.uuid4()}'
    text = f'through an agent process {uuid.uuid4()}'
    http = httpx.AsyncClient(headers={SESSION_HEADER: session}, timeout=STARTUP_TIMEOUT)
    try:
        card = await A2ACardResolver(http, invocation_url).get_agent_card()
        assert card.name == 'SDK echo'
        assert {i.url for i in card.supported_interfaces} == {invocation_url}
        client = ClientFactory(ClientConfig(streaming=False, httpx_client=http)).create(card)
        try:
            message = new_text_message(text, role=Role.ROLE_USER)
            events = [e async for e in client.send_message(SendMessageRequest(message=message))]
            assert len(events) == 1 and events[0].HasField('task'), events
            task = events[0].task
            assert task.status.state == TaskState.TASK_STATE_COMPLETED
            assert [get_artifact_text(a) for a in task.artifacts] == [text]
            got = await client.get_task(GetTaskRequest(id=task.id))
            assert got.id == task.id
        finally:
            await client.close()
    finally:
        await http.aclose()
    # The session's own process served it: its output carries the session id.
    emulator.wait_for_log(f'[{session}] listening on http://127.0.0.1:')
    emulator.wait_for_log(f'[{session}] rpc SendMessage 1.0')
    emulator.wait_for_log(f'[{session}] rpc GetTask 1.0')
