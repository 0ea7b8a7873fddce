"""The official A2A Python SDK (a2a-sdk 1.3.0), unmodified, against a2a-emulator.

tests/interop/run.sh starts the emulator (echo agent) and sets A2A_EMULATOR_URL.
Each case runs on both wire versions. The SDK picks its transport from the agent
card: the v1.0 interface gives `JsonRpcTransport`, an interface whose
protocolVersion is in [0.3, 1.0) gives `CompatJsonRpcTransport`
(a2a/client/client_factory.py, `jsonrpc_transport_producer` +
`is_legacy_version`). Our hybrid card lists both at one URL and the factory
prefers 1.0, so the v0.3 cases hand the factory the card with only its v0.3
interface, which is what a v0.3-only agent would advertise.
"""

import json
import os
import uuid

import httpx
import pytest

from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.client.card_resolver import parse_agent_card
from a2a.helpers import get_artifact_text, new_text_message
from a2a.types.a2a_pb2 import (
    AgentCard,
    GetTaskRequest,
    Role,
    SendMessageRequest,
    TaskState,
)
from a2a.utils.errors import TaskNotFoundError

BASE_URL = os.environ.get('A2A_EMULATOR_URL', '').rstrip('/')
pytestmark = pytest.mark.skipif(
    not BASE_URL, reason='A2A_EMULATOR_URL not set (run tests/interop/run.sh)'
)

# wire version -> (method names the SDK must put on the wire, A2A-Version header)
WIRE = {
    '1.0': ({'send': 'SendMessage', 'get': 'GetTask', 'stream': 'SendStreamingMessage'}, '1.0'),
    '0.3': ({'send': 'message/send', 'get': 'tasks/get', 'stream': 'message/stream'}, '0.3'),
}


class Wire:
    """Records (method, A2A-Version) of every JSON-RPC POST the SDK sends."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str | None]] = []

    async def __call__(self, request: httpx.Request) -> None:
        if request.method == 'POST':
            body = json.loads(request.content)
            self.calls.append((body['method'], request.headers.get('A2A-Version')))


async def resolve_card(http: httpx.AsyncClient) -> AgentCard:
    return await A2ACardResolver(http, BASE_URL).get_agent_card()


def card_for(card: AgentCard, version: str) -> AgentCard:
    """The card as an agent speaking only `version` would publish it."""
    if version == '1.0':
        return card  # the hybrid card as served: the factory must pick 1.0
    only = AgentCard()
    only.CopyFrom(card)
    keep = [i for i in card.supported_interfaces if i.protocol_version == version]
    assert keep, f'card lists no {version} interface: {card.supported_interfaces}'
    del only.supported_interfaces[:]
    only.supported_interfaces.extend(keep)
    return only


async def make_client(version: str, streaming: bool):
    wire = Wire()
    http = httpx.AsyncClient(event_hooks={'request': [wire]}, timeout=10)
    card = card_for(await resolve_card(http), version)
    client = ClientFactory(ClientConfig(streaming=streaming, httpx_client=http)).create(card)
    return client, http, wire


def user_message(text: str):
    return new_text_message(text, role=Role.ROLE_USER)


async def test_card_resolution():
    async with httpx.AsyncClient(timeout=10) as http:
        card = await resolve_card(http)
        raw = (await http.get(f'{BASE_URL}/.well-known/agent-card.json')).json()
    assert card.name == 'Echo Agent'
    assert card.capabilities.streaming
    interfaces = {(i.protocol_binding, i.protocol_version) for i in card.supported_interfaces}
    assert interfaces == {('JSONRPC', '1.0'), ('JSONRPC', '0.3')}
    assert {i.url.rstrip('/') for i in card.supported_interfaces} == {BASE_URL}
    # The v0.3 half of the hybrid card alone (url, protocolVersion,
    # preferredTransport) is what a v0.3-only card would be: the SDK's legacy
    # mapping must turn it into one JSONRPC interface of a legacy version.
    legacy = {k: v for k, v in raw.items() if k != 'supportedInterfaces'}
    legacy_card = parse_agent_card(legacy)
    [iface] = legacy_card.supported_interfaces
    assert (iface.protocol_binding, iface.protocol_version) == ('JSONRPC', '0.3.0')
    assert iface.url.rstrip('/') == BASE_URL


@pytest.mark.parametrize('version', ['1.0', '0.3'])
async def test_send_then_get(version):
    methods, header = WIRE[version]
    text = f'hello over {version} {uuid.uuid4()}'
    client, http, wire = await make_client(version, streaming=False)
    try:
        events = [e async for e in client.send_message(SendMessageRequest(message=user_message(text)))]
        assert len(events) == 1 and events[0].HasField('task'), events
        task = events[0].task
        assert task.id
        assert task.status.state == TaskState.TASK_STATE_COMPLETED
        assert [get_artifact_text(a) for a in task.artifacts] == [text]

        got = await client.get_task(GetTaskRequest(id=task.id))
        assert got.id == task.id
        assert got.context_id == task.context_id
        assert got.status.state == TaskState.TASK_STATE_COMPLETED
        assert [get_artifact_text(a) for a in got.artifacts] == [text]
    finally:
        await client.close()
        await http.aclose()
    assert wire.calls == [(methods['send'], header), (methods['get'], header)]


@pytest.mark.parametrize('version', ['1.0', '0.3'])
async def test_stream(version):
    methods, header = WIRE[version]
    text = f'streamed over {version} {uuid.uuid4()}'
    client, http, wire = await make_client(version, streaming=True)
    try:
        events = [e async for e in client.send_message(SendMessageRequest(message=user_message(text)))]
        kinds = [e.WhichOneof('payload') for e in events]
        assert kinds[0] == 'task', kinds
        assert kinds[-1] == 'status_update', kinds
        task_id = events[0].task.id
        assert task_id

        states, chunks = [events[0].task.status.state], []
        for e in events[1:]:
            if e.HasField('status_update'):
                assert e.status_update.task_id == task_id
                states.append(e.status_update.status.state)
            elif e.HasField('artifact_update'):
                assert e.artifact_update.task_id == task_id
                chunks.append(get_artifact_text(e.artifact_update.artifact))
            else:
                pytest.fail(f'unexpected stream event {e}')
        # Lifecycle order: submitted -> working -> completed, never backwards.
        assert states == sorted(states), states
        assert states[-1] == TaskState.TASK_STATE_COMPLETED
        assert TaskState.TASK_STATE_COMPLETED not in states[:-1]
        assert ''.join(chunks) == text
        assert kinds.index('artifact_update') < len(kinds) - 1  # artifact before completion

        got = await client.get_task(GetTaskRequest(id=task_id))
        assert got.id == task_id
        assert got.status.state == TaskState.TASK_STATE_COMPLETED
        assert [get_artifact_text(a) for a in got.artifacts] == [text]
    finally:
        await client.close()
        await http.aclose()
    assert wire.calls == [(methods['stream'], header), (methods['get'], header)]


@pytest.mark.parametrize('version', ['1.0', '0.3'])
async def test_get_unknown_task_is_task_not_found(version):
    methods, header = WIRE[version]
    client, http, wire = await make_client(version, streaming=False)
    try:
        with pytest.raises(TaskNotFoundError):
            await client.get_task(GetTaskRequest(id=f'no-such-task-{uuid.uuid4()}'))
    finally:
        await client.close()
        await http.aclose()
    assert wire.calls == [(methods['get'], header)]


# The same client through the AgentCore front: the card resolved from the AWS
# invocation URL, calls carrying the session header as AWS documents it.
RUNTIME_ARN = 'arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/interop_agent-0123456789'
SESSION_HEADER = 'X-Amzn-Bedrock-AgentCore-Runtime-Session-Id'


@pytest.mark.parametrize('version', ['1.0', '0.3'])
async def test_through_the_agentcore_invocation_url(version):
    from urllib.parse import quote

    invocation_url = f'{BASE_URL}/runtimes/{quote(RUNTIME_ARN, safe="")}/invocations/'
    session = f'interop-session-{uuid.uuid4()}'
    returned_sessions = []

    async def keep_session(response: httpx.Response) -> None:
        returned_sessions.append(response.headers.get(SESSION_HEADER))

    http = httpx.AsyncClient(
        headers={SESSION_HEADER: session},
        event_hooks={'response': [keep_session]},
        timeout=10,
    )
    text = f'through the front over {version} {uuid.uuid4()}'
    try:
        card = await A2ACardResolver(http, invocation_url).get_agent_card()
        assert {i.url for i in card.supported_interfaces} == {invocation_url}
        client = ClientFactory(ClientConfig(streaming=False, httpx_client=http)).create(
            card_for(card, version)
        )
        try:
            events = [e async for e in client.send_message(SendMessageRequest(message=user_message(text)))]
            task = events[0].task
            assert task.status.state == TaskState.TASK_STATE_COMPLETED
            assert [get_artifact_text(a) for a in task.artifacts] == [text]
            got = await client.get_task(GetTaskRequest(id=task.id))
            assert got.id == task.id
        finally:
            await client.close()
    finally:
        await http.aclose()
    assert returned_sessions and all(s == session for s in returned_sessions), returned_sessions
