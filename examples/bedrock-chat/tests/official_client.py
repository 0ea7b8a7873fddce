"""The official A2A Python SDK (a2a-sdk, unmodified) chatting with bedrock-chat behind the
AgentCore emulator: two streamed turns of one conversation in one session, each task then
read back with GetTask.

Run by official_client.rs with the emulator's URL; prints what the client saw as one JSON
document on stdout, which the Rust test compares exactly.
"""

import asyncio
import json
import sys
import uuid

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.helpers import get_artifact_text, new_text_message
from a2a.types.a2a_pb2 import GetTaskRequest, Role, SendMessageRequest, TaskState
from google.protobuf.json_format import MessageToDict

# AgentCore keeps a session's calls on one microVM (here: one agent process) when the
# client names the session.
SESSION_HEADER = 'X-Amzn-Bedrock-AgentCore-Runtime-Session-Id'


async def turn(client, text, context_id):
    message = new_text_message(text, role=Role.ROLE_USER, context_id=context_id)
    seen = []
    context = None
    task_id = None
    async for event in client.send_message(SendMessageRequest(message=message)):
        kind = event.WhichOneof('payload')
        if kind == 'task':
            context = event.task.context_id
            task_id = event.task.id
            seen.append({'task': TaskState.Name(event.task.status.state)})
        elif kind == 'artifact_update':
            update = event.artifact_update
            seen.append({
                'chunk': get_artifact_text(update.artifact),
                'append': update.append,
                'lastChunk': update.last_chunk,
            })
        elif kind == 'status_update':
            update = event.status_update
            entry = {'status': TaskState.Name(update.status.state)}
            if update.status.HasField('message'):
                entry['message'] = ''.join(p.text for p in update.status.message.parts)
                if update.status.message.HasField('metadata'):
                    entry['messageMetadata'] = MessageToDict(update.status.message.metadata)
            if update.HasField('metadata'):
                entry['metadata'] = MessageToDict(update.metadata)
            seen.append(entry)
        else:
            seen.append({'unexpected': kind})
    got = await client.get_task(GetTaskRequest(id=task_id))
    seen.append({
        'get': TaskState.Name(got.status.state),
        'metadata': MessageToDict(got.metadata),
    })
    return context, seen


async def main(base_url):
    headers = {SESSION_HEADER: f'bedrock-chat-python-{uuid.uuid4()}'}
    async with httpx.AsyncClient(headers=headers, timeout=30) as http:
        card = await A2ACardResolver(http, base_url).get_agent_card()
        client = ClientFactory(ClientConfig(streaming=True, httpx_client=http)).create(card)
        try:
            context, first = await turn(client, 'Hi, I am Ada.', None)
            second_context, second = await turn(client, 'What is my name?', context)
        finally:
            await client.close()
    print(json.dumps({
        'card': {'name': card.name, 'streaming': card.capabilities.streaming},
        'sameContext': second_context == context,
        'turns': [first, second],
    }))


if __name__ == '__main__':
    asyncio.run(main(sys.argv[1].rstrip('/')))
