"""Our `a2a` CLI against agents built on the official SDKs: the reverse direction of
test_official_client.py.

tests/interop/run.sh builds the CLI and sets A2A_CLI to it. Each server below is an
echo agent on the official SDK's own server stack, offering JSON-RPC v1.0 and (through
the SDK's compatibility layer) v0.3 at one URL:

    py  python/echo_server.py  a2a-sdk 1.3.0, Starlette + uvicorn
    js  js/echo_server.js      @a2a-js/sdk 1.3.0, express

Each server prints `rpc METHOD A2A-VERSION` per JSON-RPC request, so the cases check
which wire the CLI spoke as well as what it printed and its exit code. Each also serves
HTTP+JSON under /rest (listed last in its card) and prints `rest VERB PATH A2A-VERSION`
per request there: test_rest_binding runs the CLI with `--binding http+json`.
"""

import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
import uuid

from pathlib import Path

import pytest


CLI = os.environ.get('A2A_CLI', '')
HERE = Path(__file__).resolve().parent
STARTUP_TIMEOUT = float(os.environ.get('A2A_INTEROP_STARTUP_TIMEOUT', '60'))
pytestmark = pytest.mark.skipif(
    not CLI, reason='A2A_CLI not set (run tests/interop/run.sh)'
)

SERVERS = {
    'py': ([sys.executable, str(HERE / 'echo_server.py'), '0'], HERE),
    'js': (['node', str(HERE.parent / 'js' / 'echo_server.js'), '0'], HERE.parent / 'js'),
}
# --protocol -> the JSON-RPC methods the CLI must use and the A2A-Version it must send
# (None: the default, which must pick 1.0 from the card)
WIRE = {
    None: ({'send': 'SendMessage', 'stream': 'SendStreamingMessage', 'get': 'GetTask'}, '1.0'),
    '1.0': ({'send': 'SendMessage', 'stream': 'SendStreamingMessage', 'get': 'GetTask'}, '1.0'),
    # A2A-Version is a 1.0 header; a 0.3 client need not send it (both SDKs read its
    # absence as 0.3)
    '0.3': ({'send': 'message/send', 'stream': 'message/stream', 'get': 'tasks/get'}, '-'),
}


class Server:
    """An official-SDK echo server on a free port, and the requests it logged."""

    def __init__(self, name: str) -> None:
        argv, cwd = SERVERS[name]
        self.proc = subprocess.Popen(
            argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.stderr: list[str] = []
        threading.Thread(target=self._drain, args=(self.proc.stdout, self.lines.put), daemon=True).start()
        threading.Thread(target=self._drain, args=(self.proc.stderr, self.stderr.append), daemon=True).start()
        self.url = ''
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while not self.url and time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                if self.proc.poll() is not None:
                    break
                continue
            if line.startswith('listening on '):
                self.url = line.split()[-1]
        if not self.url:
            self.stop()
            pytest.fail(f'{name} echo server did not start:\n' + '\n'.join(self.stderr))

    @staticmethod
    def _drain(stream, put) -> None:
        for line in stream:
            put(line.rstrip('\n'))

    def rpcs(self, expected: int = 0) -> list[tuple[str, str]]:
        """(method, A2A-Version) of the requests logged since the last call: waits for
        `expected` of them (the server logs a request before answering it, so they are
        on their way once the CLI has exited), then takes whatever else is there."""
        return [tuple(call) for call in self.logged('rpc', expected)]

    def rests(self, expected: int = 0) -> list[tuple[str, str, str]]:
        """(verb, path, A2A-Version) of the HTTP+JSON requests logged, as `rpcs`."""
        return [tuple(call) for call in self.logged('rest', expected)]

    def logged(self, kind: str, expected: int) -> list[list[str]]:
        """The fields of the `kind` lines logged since the last call (others are
        dropped), waiting for `expected` of them."""
        calls: list[list[str]] = []
        deadline = time.monotonic() + 10
        while True:
            try:
                wait = max(0.0, deadline - time.monotonic()) if len(calls) < expected else 0
                line = self.lines.get(timeout=wait) if wait else self.lines.get_nowait()
            except queue.Empty:
                return calls
            if line.startswith(f'{kind} '):
                calls.append(line.split(' ')[1:])

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope='module', params=list(SERVERS))
def server(request):
    if request.param == 'js' and not shutil.which('node'):
        pytest.skip('node not found')
    srv = Server(request.param)
    yield srv
    srv.stop()


def a2a(*args: str) -> subprocess.CompletedProcess:
    # no AgentCore session or credentials from the caller's environment
    env = {k: v for k, v in os.environ.items() if not k.startswith(('A2A_', 'AWS_'))}
    env['NO_COLOR'] = '1'
    return subprocess.run(
        [CLI, *args], capture_output=True, text=True, timeout=60, env=env, check=False
    )


def protocol_args(protocol: str | None) -> list[str]:
    return ['--protocol', protocol] if protocol else []


def check(result: subprocess.CompletedProcess, code: int = 0) -> None:
    assert result.returncode == code, (
        f'exit {result.returncode} (want {code})\nstdout: {result.stdout}\nstderr: {result.stderr}'
    )


def text_of(obj: dict) -> str:
    """The first part's text of an artifact, in 1.0 ({text}) or 0.3 ({kind, text})."""
    return obj['parts'][0]['text']


@pytest.fixture(autouse=True)
def fresh_log(server):
    server.logged('', 0)  # drop what earlier cases left


def test_card(server):
    result = a2a('card', server.url)
    check(result)
    assert 'SDK echo' in result.stdout
    assert f'JSONRPC 1.0 {server.url}' in result.stdout
    assert f'JSONRPC 0.3 {server.url}' in result.stdout
    assert f'using:     JSON-RPC 1.0 at {server.url}' in result.stdout
    assert 'streaming: true' in result.stdout


@pytest.mark.parametrize('protocol', list(WIRE), ids=lambda p: p or 'default')
def test_send(server, protocol):
    methods, version = WIRE[protocol]
    word = f'hello-{uuid.uuid4().hex[:8]}'
    result = a2a('send', *protocol_args(protocol), server.url, word)
    check(result)
    assert result.stdout.strip() == word
    assert 'completed' in result.stderr
    assert server.rpcs(1) == [(methods['send'], version)]


@pytest.mark.parametrize('protocol', ['1.0', '0.3'])
def test_stream(server, protocol):
    methods, version = WIRE[protocol]
    word = f'stream-{uuid.uuid4().hex[:8]}'
    result = a2a('send', '--stream', *protocol_args(protocol), server.url, word)
    check(result)
    assert result.stdout.strip() == word
    assert '[working]' in result.stderr and '[completed]' in result.stderr
    assert server.rpcs(1) == [(methods['stream'], version)]


@pytest.mark.parametrize('protocol', ['1.0', '0.3'])
def test_stream_json(server, protocol):
    word = f'lines-{uuid.uuid4().hex[:8]}'
    result = a2a('--json', 'send', '--stream', *protocol_args(protocol), server.url, word)
    check(result)
    events = [json.loads(line) for line in result.stdout.splitlines()]
    if protocol == '1.0':  # StreamResponse: one member names the payload
        kinds = [next(iter(e)) for e in events]
        assert kinds == ['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']
        assert text_of(events[2]['artifactUpdate']['artifact']) == word
        assert events[-1]['statusUpdate']['status']['state'] == 'TASK_STATE_COMPLETED'
    else:  # kind-tagged, the last status update final
        kinds = [e['kind'] for e in events]
        assert kinds == ['task', 'status-update', 'artifact-update', 'status-update']
        assert text_of(events[2]['artifact']) == word
        assert events[-1]['status']['state'] == 'completed'
        assert events[-1]['final'] is True


@pytest.mark.parametrize('protocol', ['1.0', '0.3'])
def test_send_json_then_get(server, protocol):
    methods, version = WIRE[protocol]
    word = f'json-{uuid.uuid4().hex[:8]}'
    sent = a2a('--json', 'send', *protocol_args(protocol), server.url, word)
    check(sent)
    result = json.loads(sent.stdout)
    task = result['task'] if protocol == '1.0' else result  # SendMessageResponse / Task
    assert text_of(task['artifacts'][0]) == word

    got = a2a('get', *protocol_args(protocol), server.url, task['id'])
    check(got)
    assert got.stdout.strip() == word

    got = a2a('--json', 'get', *protocol_args(protocol), server.url, task['id'])
    check(got)
    fetched = json.loads(got.stdout)
    assert fetched['id'] == task['id']
    assert fetched['status']['state'] == (
        'TASK_STATE_COMPLETED' if protocol == '1.0' else 'completed'
    )
    assert text_of(fetched['artifacts'][0]) == word
    assert server.rpcs(3) == [(methods['send'], version)] + [(methods['get'], version)] * 2


def test_list(server):  # ListTasks: 1.0 only
    sent = json.loads(a2a('--json', 'send', server.url, 'listed').stdout)
    listed = a2a('list', server.url)
    check(listed)
    assert f"{sent['task']['id']}\t" in listed.stdout
    assert server.rpcs(2) == [('SendMessage', '1.0'), ('ListTasks', '1.0')]


@pytest.mark.parametrize('protocol', ['1.0', '0.3'])
def test_errors(server, protocol):
    missing = a2a('get', *protocol_args(protocol), server.url, 'no-such-task')
    check(missing, 1)
    assert '-32001' in missing.stderr

    done = json.loads(a2a('--json', 'send', *protocol_args(protocol), server.url, 'x').stdout)
    task_id = done['task']['id'] if protocol == '1.0' else done['id']
    finished = a2a('cancel', *protocol_args(protocol), server.url, task_id)
    check(finished, 1)
    assert '-32002' in finished.stderr  # TaskNotCancelableError: it has completed


def test_rest_binding(server):
    rest = f'{server.url}rest'
    card = a2a('card', '--binding', 'http+json', server.url)
    check(card)
    assert f'using:     HTTP+JSON 1.0 at {rest}' in card.stdout

    word = f'rest-{uuid.uuid4().hex[:8]}'
    sent = a2a('--json', 'send', '--binding', 'http+json', server.url, word)
    check(sent)
    task = json.loads(sent.stdout)['task']
    assert text_of(task['artifacts'][0]) == word
    got = a2a('get', '--binding', 'http+json', server.url, task['id'])
    check(got)
    assert got.stdout.strip() == word
    streamed = a2a('send', '--stream', '--binding', 'http+json', server.url, word)
    check(streamed)
    assert word in streamed.stdout
    finished = a2a('cancel', '--binding', 'http+json', server.url, task['id'])
    check(finished, 1)
    assert '-32002' in finished.stderr  # TaskNotCancelableError, read from its reason
    missing = a2a('get', '--binding', 'http+json', server.url, 'no-such-task')
    check(missing, 1)
    assert '-32001' in missing.stderr
    assert server.rests(5) == [
        ('POST', '/rest/message:send', '1.0'),
        ('GET', f"/rest/tasks/{task['id']}", '1.0'),
        ('POST', '/rest/message:stream', '1.0'),
        ('POST', f"/rest/tasks/{task['id']}:cancel", '1.0'),
        ('GET', '/rest/tasks/no-such-task', '1.0'),
    ]
    assert server.rpcs() == []  # nothing went over JSON-RPC
