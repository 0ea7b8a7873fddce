"""The official A2A Python SDK's push-notification calls against a2a-emulator.

tests/interop/run.sh starts the emulator (echo agent, push notifications on, loopback
webhooks allowed) and sets A2A_EMULATOR_URL. On both wire versions: the SDK's
create/get/list/delete of a task's push config; and a send carrying a config
(`ClientConfig.push_notification_config`) makes the emulator POST the finished task to a
receiver on loopback, with the token and the authentication.
"""

import http.server
import json
import os
import threading
import uuid

import pytest

from a2a.client import ClientConfig, ClientFactory
from a2a.types.a2a_pb2 import (
    AuthenticationInfo,
    DeleteTaskPushNotificationConfigRequest,
    GetTaskPushNotificationConfigRequest,
    ListTaskPushNotificationConfigsRequest,
    SendMessageRequest,
    TaskPushNotificationConfig,
)

from test_official_client import BASE_URL, card_for, make_client, resolve_card, user_message

import httpx

pytestmark = pytest.mark.skipif(
    not BASE_URL, reason='A2A_EMULATOR_URL not set (run tests/interop/run.sh)'
)


class Receiver:
    """A webhook on 127.0.0.1 that keeps what it gets."""

    def __init__(self) -> None:
        self.got: list[tuple[dict, dict]] = []
        self.arrived = threading.Condition()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (the stdlib's name)
                length = int(self.headers.get('Content-Length', '0'))
                body = json.loads(self.rfile.read(length))
                with outer.arrived:
                    outer.got.append(({k.lower(): v for k, v in self.headers.items()}, body))
                    outer.arrived.notify_all()
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f'http://127.0.0.1:{self.server.server_address[1]}/hook'

    def wait_for(self, done, timeout=15):
        with self.arrived:
            assert self.arrived.wait_for(lambda: any(done(b) for _, b in self.got), timeout), self.got
            return list(self.got)

    def close(self):
        self.server.shutdown()


async def finished_task(client) -> str:
    events = [e async for e in client.send_message(SendMessageRequest(message=user_message('hi')))]
    return events[0].task.id


@pytest.mark.parametrize('version', ['1.0', '0.3'])
async def test_config_create_get_list_delete(version):
    client, http, _ = await make_client(version, streaming=False)
    try:
        task_id = await finished_task(client)
        config_id = f'cfg-{uuid.uuid4()}'
        created = await client.create_task_push_notification_config(
            TaskPushNotificationConfig(
                task_id=task_id,
                id=config_id,
                url='https://hooks.example.com/a2a',
                token='tok',
                authentication=AuthenticationInfo(scheme='Bearer', credentials='secret'),
            )
        )
        assert (created.task_id, created.id, created.url, created.token) == (
            task_id, config_id, 'https://hooks.example.com/a2a', 'tok'
        )
        assert created.authentication.scheme == 'Bearer'
        got = await client.get_task_push_notification_config(
            GetTaskPushNotificationConfigRequest(task_id=task_id, id=config_id)
        )
        assert got == created
        listed = await client.list_task_push_notification_configs(
            ListTaskPushNotificationConfigsRequest(task_id=task_id)
        )
        assert [c.id for c in listed.configs] == [config_id]
        await client.delete_task_push_notification_config(
            DeleteTaskPushNotificationConfigRequest(task_id=task_id, id=config_id)
        )
        listed = await client.list_task_push_notification_configs(
            ListTaskPushNotificationConfigsRequest(task_id=task_id)
        )
        assert list(listed.configs) == []
    finally:
        await client.close()
        await http.aclose()


@pytest.mark.parametrize('version', ['1.0', '0.3'])
async def test_a_send_with_a_config_is_delivered(version):
    receiver = Receiver()
    http = httpx.AsyncClient(timeout=10)
    config = TaskPushNotificationConfig(
        url=receiver.url,
        token=f'tok-{version}',
        authentication=AuthenticationInfo(scheme='Bearer', credentials=f'cred-{version}'),
    )
    card = card_for(await resolve_card(http), version)
    client = ClientFactory(
        ClientConfig(streaming=False, httpx_client=http, push_notification_config=config)
    ).create(card)
    try:
        task_id = await finished_task(client)
        if version == '1.0':
            done = lambda body: body.get('task', {}).get('status', {}).get('state') == 'TASK_STATE_COMPLETED'  # noqa: E731
        else:
            done = lambda body: body.get('status', {}).get('state') == 'completed'  # noqa: E731
        got = receiver.wait_for(done)
        headers, body = got[-1]
        assert headers['x-a2a-notification-token'] == f'tok-{version}'
        assert headers['authorization'] == f'Bearer cred-{version}'
        task = body['task'] if version == '1.0' else body
        assert task['id'] == task_id
    finally:
        await client.close()
        await http.aclose()
        receiver.close()
