// The official A2A JS SDK (@a2a-js/sdk 1.3.0) told to prefer HTTP+JSON, against our
// a2a-container (echo agent, A2A_BINDINGS=jsonrpc,http+json: the card lists JSON-RPC
// first, so the client's `preferredTransports` is what picks REST).
//
// tests/interop/run.sh starts the container once and sets A2A_CONTAINER_URL. Every
// request the SDK sends is recorded, so each case asserts that the REST routes and verbs
// (A2A specification v1.0 §11.3) really went on the wire.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Role, TaskState } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { TaskNotCancelableError, TaskNotFoundError } from '@a2a-js/sdk/errors';

const BASE_URL = (process.env.A2A_CONTAINER_URL ?? '').replace(/\/$/, '');
const skip = BASE_URL ? false : 'A2A_CONTAINER_URL not set (run tests/interop/run.sh)';

/** A fetch that records [method, path, A2A-Version] of every request but the card's. */
function recordingFetch() {
  const calls = [];
  const fetchImpl = (url, init) => {
    const path = new URL(String(url)).pathname;
    if (!path.endsWith('agent-card.json')) {
      calls.push([init?.method ?? 'GET', path, new Headers(init?.headers).get('A2A-Version')]);
    }
    return fetch(url, init);
  };
  return { calls, fetchImpl };
}

async function makeClient() {
  const { calls, fetchImpl } = recordingFetch();
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      preferredTransports: ['HTTP+JSON'],
    }),
  );
  return { client: await factory.createFromUrl(BASE_URL), calls };
}

const userMessage = (text) => ({
  message: { messageId: randomUUID(), role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: text } }] },
});
const artifactTexts = (task) => task.artifacts.map((a) => a.parts.map((p) => p.content.value).join(''));

test('HTTP+JSON: send, get and cancel', { skip }, async () => {
  const { client, calls } = await makeClient();
  const text = `hello over REST ${randomUUID()}`;
  const task = await client.sendMessage(userMessage(text));
  assert.ok(task.id, `expected a Task, got ${JSON.stringify(task)}`);
  assert.equal(task.status.state, TaskState.TASK_STATE_COMPLETED);
  assert.deepEqual(artifactTexts(task), [text]);

  const got = await client.getTask({ id: task.id });
  assert.equal(got.id, task.id);
  assert.equal(got.contextId, task.contextId);
  assert.deepEqual(artifactTexts(got), [text]);

  // The echo task has completed: the cancel reaches its route and is refused with the
  // reason TASK_NOT_CANCELABLE, which the SDK maps to its typed error.
  await assert.rejects(client.cancelTask({ id: task.id }), TaskNotCancelableError);
  await assert.rejects(client.getTask({ id: `no-such-task-${randomUUID()}` }), TaskNotFoundError);

  assert.deepEqual(calls.slice(0, 3), [
    ['POST', '/message:send', '1.0'],
    ['GET', `/tasks/${task.id}`, '1.0'],
    ['POST', `/tasks/${task.id}:cancel`, '1.0'],
  ]);
  assert.equal(calls.length, 4);
});

test('HTTP+JSON: stream', { skip }, async () => {
  const { client, calls } = await makeClient();
  const text = `streamed over REST ${randomUUID()}`;
  const events = [];
  for await (const event of client.sendMessageStream(userMessage(text))) events.push(event.payload);
  const kinds = events.map((e) => e.$case);
  assert.equal(kinds[0], 'task', kinds.join());
  assert.equal(kinds.at(-1), 'statusUpdate', kinds.join());
  const streamed = events
    .filter((e) => e.$case === 'artifactUpdate')
    .map((e) => e.value.artifact.parts.map((p) => p.content.value).join(''))
    .join('');
  assert.equal(streamed, text);
  assert.equal(events.at(-1).value.status.state, TaskState.TASK_STATE_COMPLETED);
  assert.deepEqual(calls, [['POST', '/message:stream', '1.0']]);
});
