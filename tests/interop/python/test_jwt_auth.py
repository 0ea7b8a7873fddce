"""The official A2A Python client through `a2a-emulator --auth jwt`, with a token from
`a2a-emulator token`: without it the invocation URL answers AgentCore's 401 (naming its
OAuth metadata); with it (a default header of the client's httpx client) the client
sends and reads a task.

tests/interop/run.sh sets A2A_EMULATOR_BIN; this test starts its own emulator.
"""

import subprocess
import tempfile
import uuid

from urllib.parse import quote

import httpx
import pytest

from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.helpers import get_artifact_text, new_text_message
from a2a.types.a2a_pb2 import Role, SendMessageRequest, TaskState

from own_emulator import EMULATOR, STARTUP_TIMEOUT, clean_env, emulator, needs_emulator

RUNTIME_ARN = 'arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/jwt_auth-0123456789'
SESSION_HEADER = 'X-Amzn-Bedrock-AgentCore-Runtime-Session-Id'
pytestmark = needs_emulator


@pytest.fixture
def jwt_emulator():
    """(base URL, state dir) of an emulator trusting its own key, kept in the state dir."""
    with tempfile.TemporaryDirectory() as state:
        with emulator('--auth', 'jwt', '--jwt-allowed-scopes', 'a2a/invoke', '--state-dir', state) as url:
            yield url, state


def token(state: str) -> str:
    out = subprocess.run(
        [EMULATOR, 'token', '--sub', 'py-user', '--scope', 'a2a/invoke', '--state-dir', state],
        env=clean_env(), check=True, capture_output=True, text=True,
    )
    return out.stdout.strip()


async def test_the_official_client_passes_with_a_bearer_token(jwt_emulator):
    base, state = jwt_emulator
    invocation_url = f'{base}/runtimes/{quote(RUNTIME_ARN, safe="")}/invocations/'
    session = {SESSION_HEADER: f'jwt-auth-session-{uuid.uuid4()}'}
    async with httpx.AsyncClient(headers=session, timeout=STARTUP_TIMEOUT) as anonymous:
        refused = await anonymous.get(f'{invocation_url}.well-known/agent-card.json')
        assert refused.status_code == 401
        assert refused.headers['www-authenticate'] == (
            f'Bearer resource_metadata="{invocation_url}.well-known/oauth-protected-resource'
            '?qualifier=DEFAULT"'
        )
    headers = {**session, 'Authorization': f'Bearer {token(state)}'}
    text = f'with a token {uuid.uuid4()}'
    async with httpx.AsyncClient(headers=headers, timeout=STARTUP_TIMEOUT) as http:
        card = await A2ACardResolver(http, invocation_url).get_agent_card()
        client = ClientFactory(ClientConfig(streaming=False, httpx_client=http)).create(card)
        try:
            message = new_text_message(text, role=Role.ROLE_USER)
            events = [e async for e in client.send_message(SendMessageRequest(message=message))]
            assert len(events) == 1 and events[0].HasField('task'), events
            task = events[0].task
            assert task.status.state == TaskState.TASK_STATE_COMPLETED
            assert [get_artifact_text(a) for a in task.artifacts] == [text]
        finally:
            await client.close()
