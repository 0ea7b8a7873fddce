"""The session header with the official A2A Python SDK, through the AgentCore invocation URL.

AgentCore puts each invocation without `X-Amzn-Bedrock-AgentCore-Runtime-Session-Id` in a
new session (a microVM of its own), so a client that sends none cannot get back the task
it just made: the get answers -32001 (TaskNotFoundError). The two ways the guide shows (docs/src/emulator/sessions.md)
to send the header: an httpx client with default headers, or a `ClientCallContext` whose
`service_parameters` the SDK's JSON-RPC transport sends as HTTP headers on that call.

tests/interop/run.sh starts the emulator (echo agent) and sets A2A_EMULATOR_URL.
"""

import os
import uuid
from urllib.parse import quote

import httpx
import pytest

from a2a.client import A2ACardResolver, ClientCallContext, ClientConfig, ClientFactory
from a2a.helpers import new_text_message
from a2a.types.a2a_pb2 import GetTaskRequest, Role, SendMessageRequest, TaskState
from a2a.utils.errors import TaskNotFoundError

BASE_URL = os.environ.get('A2A_EMULATOR_URL', '').rstrip('/')
pytestmark = pytest.mark.skipif(
    not BASE_URL, reason='A2A_EMULATOR_URL not set (run tests/interop/run.sh)'
)

RUNTIME_ARN = 'arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/session_agent-0123456789'
INVOCATION_URL = f'{BASE_URL}/runtimes/{quote(RUNTIME_ARN, safe="")}/invocations/'
SESSION_HEADER = 'X-Amzn-Bedrock-AgentCore-Runtime-Session-Id'


def new_session() -> str:
    # AgentCore accepts 33 to 256 characters.
    return f'my-app-session-{uuid.uuid4()}'


async def client_over(http: httpx.AsyncClient):
    card = await A2ACardResolver(http, INVOCATION_URL).get_agent_card()
    return ClientFactory(ClientConfig(streaming=False, httpx_client=http)).create(card)


async def send(client, context=None):
    request = SendMessageRequest(message=new_text_message('hello', role=Role.ROLE_USER))
    [event] = [e async for e in client.send_message(request, context=context)]
    assert event.task.status.state == TaskState.TASK_STATE_COMPLETED
    return event.task


async def test_default_headers_keep_every_call_in_the_session():
    session = new_session()
    sessions_returned = []

    async def returned(response: httpx.Response) -> None:
        sessions_returned.append(response.headers.get(SESSION_HEADER))

    http = httpx.AsyncClient(
        headers={SESSION_HEADER: session}, event_hooks={'response': [returned]}, timeout=10
    )
    try:
        client = await client_over(http)
        task = await send(client)
        got = await client.get_task(GetTaskRequest(id=task.id))
        assert got.id == task.id
        await client.close()
    finally:
        await http.aclose()
    assert sessions_returned[-2:] == [session, session], sessions_returned


async def test_a_call_context_sends_the_header_on_each_call():
    context = ClientCallContext(service_parameters={SESSION_HEADER: new_session()})
    async with httpx.AsyncClient(timeout=10) as http:
        client = await client_over(http)
        task = await send(client, context)
        got = await client.get_task(GetTaskRequest(id=task.id), context=context)
        assert got.id == task.id
        await client.close()


async def test_without_the_header_the_get_lands_in_a_new_session_and_finds_nothing():
    async with httpx.AsyncClient(timeout=10) as http:
        client = await client_over(http)
        task = await send(client)
        with pytest.raises(TaskNotFoundError):
            await client.get_task(GetTaskRequest(id=task.id))
        await client.close()
