"""The official A2A Python SDK (a2a-sdk 1.3.0, its `grpc` extra) told to use gRPC, against
our a2a-container (echo agent, A2A_BINDINGS=jsonrpc,http+json,grpc: the card lists the
GRPC interface at its own port, and the client's preference is what picks it).

tests/interop/run.sh starts the container once and sets A2A_CONTAINER_URL. The client is
made as the SDK documents (`ClientConfig(supported_protocol_bindings=['GRPC'],
grpc_channel_factory=...)`, `ClientFactory.create_from_url`); the channel factory records
the URL it is given, so each case asserts the call went to the card's gRPC interface.
Refusals are read by the SDK from the status's `google.rpc.ErrorInfo` reason (A2A
specification v1.0 §10.6).
"""

import os
import uuid

import grpc
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


async def make_client(streaming: bool):
    dialed: list[str] = []

    def channel(url: str):
        dialed.append(url)
        # The card's URL is `http://host:port`; grpc's target is `host:port`.
        return grpc.aio.insecure_channel(url.removeprefix('http://').rstrip('/'))

    config = ClientConfig(
        streaming=streaming,
        grpc_channel_factory=channel,
        supported_protocol_bindings=['GRPC'],
    )
    client = await ClientFactory(config).create_from_url(BASE_URL)
    return client, dialed


def user_message(text: str):
    return new_text_message(text, role=Role.ROLE_USER)


async def test_send_get_and_cancel_over_grpc():
    text = f'hello over gRPC {uuid.uuid4()}'
    client, dialed = await make_client(streaming=False)
    try:
        events = [e async for e in client.send_message(SendMessageRequest(message=user_message(text)))]
        assert len(events) == 1 and events[0].HasField('task'), events
        task = events[0].task
        assert task.status.state == TaskState.TASK_STATE_COMPLETED
        assert [get_artifact_text(a) for a in task.artifacts] == [text]

        got = await client.get_task(GetTaskRequest(id=task.id))
        assert (got.id, got.context_id) == (task.id, task.context_id)
        assert got.status.state == TaskState.TASK_STATE_COMPLETED

        with pytest.raises(TaskNotCancelableError):
            await client.cancel_task(CancelTaskRequest(id=task.id))
        with pytest.raises(TaskNotFoundError):
            await client.get_task(GetTaskRequest(id=f'no-such-task-{uuid.uuid4()}'))
    finally:
        await client.close()
    assert len(dialed) == 1 and dialed[0].startswith('http://127.0.0.1:'), dialed
    assert dialed[0].rstrip('/') != BASE_URL, 'gRPC has a port of its own'


async def test_stream_over_grpc():
    text = f'streamed over gRPC {uuid.uuid4()}'
    client, dialed = await make_client(streaming=True)
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
    assert len(dialed) == 1, dialed
