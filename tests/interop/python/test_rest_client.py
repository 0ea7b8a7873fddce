"""The official A2A Python SDK (a2a-sdk 1.3.0) told to prefer HTTP+JSON, against our
a2a-container (echo agent, A2A_BINDINGS=jsonrpc,http+json: the card lists JSON-RPC first,
so the client's preference is what picks REST).

tests/interop/run.sh starts the container once and sets A2A_CONTAINER_URL. The client is
made as the SDK documents (`ClientConfig(supported_protocol_bindings=['HTTP+JSON'])`,
`ClientFactory.create_from_url`); every request it sends is recorded, so each case asserts
the REST routes and verbs really went on the wire (A2A specification v1.0 §11.3).
"""

import os
import uuid

import httpx
import pytest

from a2a.client import ClientConfig, ClientFactory
from a2a.helpers import get_artifact_text, new_text_message
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    GetTaskRequest,
    Role,
    SendMessageRequest,
    TaskState,
)
from a2a.utils.errors import TaskNotCancelableError, TaskNotFoundError

BASE_URL = os.environ.get('A2A_CONTAINER_URL', '').rstrip('/')
pytestmark = pytest.mark.skipif(
    not BASE_URL, reason='A2A_CONTAINER_URL not set (run tests/interop/run.sh)'
)


class Wire:
    """Records (method, path, A2A-Version) of every request but the card's."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, str | None]] = []

    async def __call__(self, request: httpx.Request) -> None:
        if not request.url.path.endswith('agent-card.json'):
            self.calls.append(
                (request.method, request.url.path, request.headers.get('A2A-Version'))
            )


async def make_client(streaming: bool):
    wire = Wire()
    http = httpx.AsyncClient(event_hooks={'request': [wire]}, timeout=10)
    config = ClientConfig(
        streaming=streaming,
        httpx_client=http,
        supported_protocol_bindings=['HTTP+JSON'],
    )
    client = await ClientFactory(config).create_from_url(BASE_URL)
    return client, http, wire


def user_message(text: str):
    return new_text_message(text, role=Role.ROLE_USER)


async def test_send_get_and_cancel_over_rest():
    text = f'hello over REST {uuid.uuid4()}'
    client, http, wire = await make_client(streaming=False)
    try:
        events = [e async for e in client.send_message(SendMessageRequest(message=user_message(text)))]
        assert len(events) == 1 and events[0].HasField('task'), events
        task = events[0].task
        assert task.status.state == TaskState.TASK_STATE_COMPLETED
        assert [get_artifact_text(a) for a in task.artifacts] == [text]

        got = await client.get_task(GetTaskRequest(id=task.id))
        assert (got.id, got.context_id) == (task.id, task.context_id)
        assert got.status.state == TaskState.TASK_STATE_COMPLETED
        assert [get_artifact_text(a) for a in got.artifacts] == [text]

        # The echo task has completed: the cancel reaches the route and is refused as
        # TASK_NOT_CANCELABLE, which the SDK maps by the ErrorInfo reason.
        with pytest.raises(TaskNotCancelableError):
            await client.cancel_task(CancelTaskRequest(id=task.id))
        with pytest.raises(TaskNotFoundError):
            await client.get_task(GetTaskRequest(id=f'no-such-task-{uuid.uuid4()}'))
    finally:
        await client.close()
        await http.aclose()
    assert wire.calls[:3] == [
        ('POST', '/message:send', '1.0'),
        ('GET', f'/tasks/{task.id}', '1.0'),
        ('POST', f'/tasks/{task.id}:cancel', '1.0'),
    ]
    method, path, version = wire.calls[3]
    assert (method, version) == ('GET', '1.0') and path.startswith('/tasks/no-such-task-')
    assert len(wire.calls) == 4


async def test_stream_over_rest():
    text = f'streamed over REST {uuid.uuid4()}'
    client, http, wire = await make_client(streaming=True)
    try:
        events = [e async for e in client.send_message(SendMessageRequest(message=user_message(text)))]
        kinds = [e.WhichOneof('payload') for e in events]
        assert kinds[0] == 'task' and kinds[-1] == 'status_update', kinds
        task_id = events[0].task.id
        chunks = [
            get_artifact_text(e.artifact_update.artifact)
            for e in events
            if e.HasField('artifact_update')
        ]
        assert ''.join(chunks) == text
        assert events[-1].status_update.task_id == task_id
        assert events[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
    finally:
        await client.close()
        await http.aclose()
    assert wire.calls == [('POST', '/message:stream', '1.0')]
