// The official A2A JS SDK (@a2a-js/sdk 1.3.0), unmodified, against a2a-emulator.
//
// tests/interop/run.sh starts the emulator (echo agent) and sets A2A_EMULATOR_URL.
// The SDK's v0.3 compat is the `legacyCompat: { enabled: true }` option of
// JsonRpcTransportFactory and DefaultAgentCardResolver: the factory then builds
// LegacyJsonRpcTransport when the chosen interface's protocolVersion is in
// [0.3, 1.0) (dist/client/index.js, JsonRpcTransportFactory.create). It prefers
// a "1.0" interface when the card lists one, so our hybrid card keeps v1.0 even
// with compat on; the v0.3 wire is reached through the card's v0.3 view (the
// served card without supportedInterfaces), which is what a v0.3 agent serves.
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
import { parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';

const BASE_URL = (process.env.A2A_EMULATOR_URL ?? '').replace(/\/$/, '');
const skip = BASE_URL ? false : 'A2A_EMULATOR_URL not set (run tests/interop/run.sh)';
const CARD_URL = `${BASE_URL}/.well-known/agent-card.json`;

const WIRE = {
  '1.0': { send: 'SendMessage', get: 'GetTask', stream: 'SendStreamingMessage' },
  '0.3': { send: 'message/send', get: 'tasks/get', stream: 'message/stream' },
};

/** A fetch that records [JSON-RPC method, A2A-Version header] of every POST. */
function recordingFetch() {
  const calls = [];
  const fetchImpl = (url, init) => {
    if (init?.method === 'POST') {
      calls.push([JSON.parse(init.body).method, new Headers(init.headers).get('A2A-Version')]);
    }
    return fetch(url, init);
  };
  return { calls, fetchImpl };
}

function factory(legacy, fetchImpl) {
  const legacyCompat = legacy ? { enabled: true } : undefined;
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl, legacyCompat }),
    }),
  );
}

const userMessage = (text) => ({
  message: { messageId: randomUUID(), role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: text } }] },
});
const artifactTexts = (task) => task.artifacts.map((a) => a.parts.map((p) => p.content.value).join(''));

test('card resolution', { skip }, async () => {
  const card = await new DefaultAgentCardResolver().resolve(BASE_URL);
  assert.equal(card.name, 'Echo Agent');
  assert.equal(card.capabilities.streaming, true);
  const ifaces = card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion}`).sort();
  assert.deepEqual(ifaces, ['JSONRPC 0.3', 'JSONRPC 1.0']);
  for (const i of card.supportedInterfaces) assert.equal(i.url.replace(/\/$/, ''), BASE_URL);

  // The v0.3 half of the hybrid card alone must parse as a v0.3 card.
  const { supportedInterfaces, ...legacy } = await (await fetch(CARD_URL)).json();
  const legacyCard = parseLegacyAgentCard(legacy);
  assert.equal(legacyCard.name, 'Echo Agent');
  assert.equal(legacyCard.supportedInterfaces.length, 1);
  const [iface] = legacyCard.supportedInterfaces;
  assert.equal(iface.protocolBinding, 'JSONRPC');
  assert.equal(iface.protocolVersion, legacy.protocolVersion); // copied from the v0.3 field
  assert.match(iface.protocolVersion, /^0\.3(\.\d+)?$/);
  assert.equal(iface.url.replace(/\/$/, ''), BASE_URL);
});

// [name, legacyCompat, card served to the factory, wire version expected]
const CASES = [
  ['compat off, hybrid card', false, 'hybrid', '1.0'],
  ['compat on, hybrid card', true, 'hybrid', '1.0'],
  ['compat on, v0.3 view of the card', true, 'v0.3', '0.3'],
];

async function makeClient(legacy, cardView) {
  const { calls, fetchImpl } = recordingFetch();
  const f = factory(legacy, fetchImpl);
  if (cardView === 'hybrid') return { client: await f.createFromUrl(BASE_URL), calls };
  const { supportedInterfaces, ...legacyCard } = await (await fetch(CARD_URL)).json();
  return { client: await f.createFromAgentCard(legacyCard), calls };
}

for (const [name, legacy, cardView, version] of CASES) {
  test(`${name}: send then get (v${version} wire)`, { skip }, async () => {
    const { client, calls } = await makeClient(legacy, cardView);
    assert.equal(client.protocolVersion, version);
    const text = `hello over ${version} ${randomUUID()}`;

    const task = await client.sendMessage(userMessage(text));
    assert.ok(task.id, `expected a Task, got ${JSON.stringify(task)}`);
    assert.equal(task.status.state, TaskState.TASK_STATE_COMPLETED);
    assert.deepEqual(artifactTexts(task), [text]);

    const got = await client.getTask({ id: task.id });
    assert.equal(got.id, task.id);
    assert.equal(got.contextId, task.contextId);
    assert.equal(got.status.state, TaskState.TASK_STATE_COMPLETED);
    assert.deepEqual(artifactTexts(got), [text]);

    assert.deepEqual(calls, [[WIRE[version].send, version], [WIRE[version].get, version]]);
  });

  test(`${name}: stream (v${version} wire)`, { skip }, async () => {
    const { client, calls } = await makeClient(legacy, cardView);
    const text = `streamed over ${version} ${randomUUID()}`;

    const events = [];
    for await (const event of client.sendMessageStream(userMessage(text))) events.push(event.payload);
    const kinds = events.map((e) => e.$case);
    assert.equal(kinds[0], 'task', kinds.join());
    assert.equal(kinds.at(-1), 'statusUpdate', kinds.join());
    const taskId = events[0].value.id;
    assert.ok(taskId);

    const states = [events[0].value.status.state];
    let streamed = '';
    for (const { $case, value } of events.slice(1)) {
      assert.equal(value.taskId, taskId);
      if ($case === 'statusUpdate') states.push(value.status.state);
      else if ($case === 'artifactUpdate') streamed += value.artifact.parts.map((p) => p.content.value).join('');
      else assert.fail(`unexpected stream event ${$case}`);
    }
    // Lifecycle order: submitted -> working -> completed, never backwards.
    assert.deepEqual(states, [...states].sort((a, b) => a - b));
    assert.equal(states.at(-1), TaskState.TASK_STATE_COMPLETED);
    assert.equal(states.indexOf(TaskState.TASK_STATE_COMPLETED), states.length - 1);
    assert.ok(kinds.indexOf('artifactUpdate') > 0, 'an artifact update before completion');
    assert.equal(streamed, text);

    const got = await client.getTask({ id: taskId });
    assert.equal(got.id, taskId);
    assert.equal(got.status.state, TaskState.TASK_STATE_COMPLETED);
    assert.deepEqual(artifactTexts(got), [text]);

    assert.deepEqual(calls, [[WIRE[version].stream, version], [WIRE[version].get, version]]);
  });

  test(`${name}: get of an unknown task is TaskNotFoundError (v${version} wire)`, { skip }, async () => {
    const { client, calls } = await makeClient(legacy, cardView);
    await assert.rejects(client.getTask({ id: `no-such-task-${randomUUID()}` }), TaskNotFoundError);
    assert.deepEqual(calls, [[WIRE[version].get, version]]);
  });
}

// Through the AgentCore front: the card resolved from the AWS invocation URL, every call
// carrying the session header, as AWS documents it.
const RUNTIME_ARN = 'arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/interop_agent-0123456789';
const SESSION_HEADER = 'X-Amzn-Bedrock-AgentCore-Runtime-Session-Id';

for (const legacy of [false, true]) {
  test(`through the AgentCore invocation URL, compat ${legacy ? 'on' : 'off'}: send then get`, { skip }, async () => {
    const invocationUrl = `${BASE_URL}/runtimes/${encodeURIComponent(RUNTIME_ARN)}/invocations/`;
    const session = `interop-session-${randomUUID()}`;
    const returned = [];
    const fetchImpl = async (url, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set(SESSION_HEADER, session);
      const response = await fetch(url, { ...init, headers });
      returned.push(response.headers.get(SESSION_HEADER));
      return response;
    };
    const client = await factory(legacy, fetchImpl).createFromUrl(invocationUrl);
    const text = `through the front ${randomUUID()}`;
    const task = await client.sendMessage(userMessage(text));
    assert.equal(task.status.state, TaskState.TASK_STATE_COMPLETED);
    assert.deepEqual(artifactTexts(task), [text]);
    const got = await client.getTask({ id: task.id });
    assert.equal(got.id, task.id);
    assert.ok(returned.length >= 3, `card, send and get answered: ${returned}`);
    assert.ok(returned.every((s) => s === session), `session header returned: ${returned}`);
  });
}
