"""An echo agent built on the official A2A Python SDK (a2a-sdk 1.3.0), for our CLI.

    python echo_server.py PORT        (0 picks a free port)

Serves on 127.0.0.1: the agent card at /.well-known/agent-card.json and JSON-RPC at
/, speaking A2A v1.0 and, through the SDK's v0.3 compatibility layer
(`enable_v0_3_compat`, same endpoint, chosen by method name), v0.3. The card lists
both interfaces; the SDK adds the v0.3 top-level fields (url, protocolVersion,
preferredTransport) from the v0.3 one. Prints `listening on http://127.0.0.1:PORT/`
once the socket is bound and the app started, then `rpc METHOD A2A-VERSION` for each
JSON-RPC request as it arrives (`-` when the header is missing), so a test can see
which wire its client spoke. HTTP+JSON (v1.0, the SDK's `create_rest_routes`) is served
under /rest and listed last in the card (a client walking the card's order picks
JSON-RPC); each of its requests prints `rest VERB PATH A2A-VERSION`. `GET /ping` answers `{"status": "Healthy"}`, as an
AgentCore container's health check does (a2a-emulator --agent-cmd waits for it).

Every message becomes a task: working -> artifact `echo` with the user's text ->
completed (a streaming client sees each event, a blocking one the completed task).
"""

import asyncio
import socket
import sys

import uvicorn

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from a2a.helpers import new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import (
    create_agent_card_routes,
    create_jsonrpc_routes,
    create_rest_routes,
)
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types.a2a_pb2 import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Task,
    TaskState,
    TaskStatus,
)


class EchoExecutor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = context.get_user_input()
        if context.current_task is None:
            await event_queue.enqueue_event(
                Task(
                    id=context.task_id,
                    context_id=context.context_id,
                    status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED),
                    history=[context.message],
                )
            )
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.start_work()
        await updater.add_artifact([new_text_part(text)], name='echo', last_chunk=True)
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


def agent_card(url: str) -> AgentCard:
    return AgentCard(
        name='SDK echo',
        description='Echoes the text it is sent (official a2a-sdk server)',
        version='1.0.0',
        supported_interfaces=[
            AgentInterface(url=url, protocol_binding='JSONRPC', protocol_version='1.0'),
            AgentInterface(url=url, protocol_binding='JSONRPC', protocol_version='0.3'),
            AgentInterface(
                url=f'{url}rest', protocol_binding='HTTP+JSON', protocol_version='1.0'
            ),
        ],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=['text/plain'],
        default_output_modes=['text/plain'],
        skills=[
            AgentSkill(
                id='echo', name='echo', description='Echoes the text', tags=['echo']
            )
        ],
    )


async def main(port: int) -> None:
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(('127.0.0.1', port))
    url = f'http://127.0.0.1:{sock.getsockname()[1]}/'
    card = agent_card(url)
    handler = DefaultRequestHandler(
        agent_executor=EchoExecutor(), task_store=InMemoryTaskStore(), agent_card=card
    )
    [rpc] = create_jsonrpc_routes(handler, '/', enable_v0_3_compat=True)

    async def logged_rpc(request: Request):
        try:
            method = (await request.json()).get('method')  # starlette caches the body
        except Exception:
            method = None
        print('rpc', method, request.headers.get('A2A-Version', '-'), flush=True)
        return await rpc.endpoint(request)

    async def ping(request: Request):
        return JSONResponse({'status': 'Healthy'})

    app = Starlette(
        routes=[
            *create_agent_card_routes(card),
            Route('/', logged_rpc, methods=['POST']),
            Route('/ping', ping, methods=['GET']),
            *create_rest_routes(handler, path_prefix='/rest'),
        ]
    )

    async def logged(scope, receive, send):
        if scope['type'] == 'http' and scope['path'].startswith('/rest/'):
            version = dict(scope['headers']).get(b'a2a-version', b'-').decode()
            print('rest', scope['method'], scope['path'], version, flush=True)
        await app(scope, receive, send)

    server = uvicorn.Server(uvicorn.Config(logged, log_level='warning'))
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started and not serving.done():
        await asyncio.sleep(0.02)
    if server.started:
        print(f'listening on {url}', flush=True)
    await serving


if __name__ == '__main__':
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 0))
