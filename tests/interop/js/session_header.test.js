// The session header with the official A2A JS SDK, through the AgentCore invocation URL.
//
// AgentCore puts each invocation without X-Amzn-Bedrock-AgentCore-Runtime-Session-Id in a
// new session (a microVM of its own), so a client that sends none cannot get back the task
// it just made: the get answers -32001 (TaskNotFoundError). The two ways the guide shows (docs/src/emulator/sessions.md)
// to send the header: a custom fetch that adds it to every request, or the per-call
// `serviceParameters` option, which the SDK's JSON-RPC transport sends as HTTP headers.
//
// tests/interop/run.sh starts the emulator (echo agent) and sets A2A_EMULATOR_URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Role, TaskState } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';

const BASE_URL = (process.env.A2A_EMULATOR_URL ?? '').replace(/\/$/, '');
const skip = BASE_URL ? false : 'A2A_EMULATOR_URL not set (run tests/interop/run.sh)';
const RUNTIME_ARN = 'arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/session_agent-0123456789';
const INVOCATION_URL = `${BASE_URL}/runtimes/${encodeURIComponent(RUNTIME_ARN)}/invocations/`;
const SESSION_HEADER = 'X-Amzn-Bedrock-AgentCore-Runtime-Session-Id';

// AgentCore accepts 33 to 256 characters.
const newSession = () => `my-app-session-${randomUUID()}`;

function clientOver(fetchImpl = fetch) {
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  ).createFromUrl(INVOCATION_URL);
}

const hello = () => ({
  message: { messageId: randomUUID(), role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: 'hello' } }] },
});

test('a custom fetch keeps every call in the session', { skip }, async () => {
  const session = newSession();
  const returned = [];
  const fetchImpl = async (url, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set(SESSION_HEADER, session);
    const response = await fetch(url, { ...init, headers });
    returned.push(response.headers.get(SESSION_HEADER));
    return response;
  };
  const client = await clientOver(fetchImpl);
  const task = await client.sendMessage(hello());
  assert.equal(task.status.state, TaskState.TASK_STATE_COMPLETED);
  const got = await client.getTask({ id: task.id });
  assert.equal(got.id, task.id);
  assert.deepEqual(returned.slice(-2), [session, session]);
});

test('serviceParameters send the header on each call', { skip }, async () => {
  const options = { serviceParameters: { [SESSION_HEADER]: newSession() } };
  const client = await clientOver();
  const task = await client.sendMessage(hello(), options);
  const got = await client.getTask({ id: task.id }, options);
  assert.equal(got.id, task.id);
});

test('without the header the get lands in a new session and finds nothing', { skip }, async () => {
  const client = await clientOver();
  const task = await client.sendMessage(hello());
  assert.equal(task.status.state, TaskState.TASK_STATE_COMPLETED);
  await assert.rejects(client.getTask({ id: task.id }), TaskNotFoundError);
});
