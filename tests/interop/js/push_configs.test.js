// The official A2A JS SDK (@a2a-js/sdk 1.3.0), unmodified: its push-notification config
// calls against a2a-emulator, on the v1.0 wire and (through the card's v0.3 view with
// legacy compat on) the v0.3 wire. tests/interop/run.sh starts the emulator (echo agent)
// and sets A2A_EMULATOR_URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Role } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';

const BASE_URL = (process.env.A2A_EMULATOR_URL ?? '').replace(/\/$/, '');
const skip = BASE_URL ? false : 'A2A_EMULATOR_URL not set (run tests/interop/run.sh)';
const CARD_URL = `${BASE_URL}/.well-known/agent-card.json`;

/** A fetch that records the JSON-RPC method of every POST. */
function recordingFetch() {
  const methods = [];
  const fetchImpl = (url, init) => {
    if (init?.method === 'POST') methods.push(JSON.parse(init.body).method);
    return fetch(url, init);
  };
  return { methods, fetchImpl };
}

async function makeClient(version) {
  const { methods, fetchImpl } = recordingFetch();
  const legacyCompat = version === '0.3' ? { enabled: true } : undefined;
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl, legacyCompat }),
    }),
  );
  if (version === '1.0') return { client: await factory.createFromUrl(BASE_URL), methods };
  const { supportedInterfaces, ...legacyCard } = await (await fetch(CARD_URL)).json();
  return { client: await factory.createFromAgentCard(legacyCard), methods };
}

const METHODS = {
  '1.0': [
    'SendMessage',
    'CreateTaskPushNotificationConfig',
    'GetTaskPushNotificationConfig',
    'ListTaskPushNotificationConfigs',
    'DeleteTaskPushNotificationConfig',
    'ListTaskPushNotificationConfigs',
  ],
  '0.3': [
    'message/send',
    'tasks/pushNotificationConfig/set',
    'tasks/pushNotificationConfig/get',
    'tasks/pushNotificationConfig/list',
    'tasks/pushNotificationConfig/delete',
    'tasks/pushNotificationConfig/list',
  ],
};

for (const version of ['1.0', '0.3']) {
  test(`push config create, get, list, delete (v${version} wire)`, { skip }, async () => {
    const { client, methods } = await makeClient(version);
    assert.equal(client.protocolVersion, version);
    const task = await client.sendMessage({
      message: { messageId: randomUUID(), role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: 'hi' } }] },
    });
    const id = `cfg-${randomUUID()}`;
    const config = {
      taskId: task.id,
      id,
      url: 'https://hooks.example.com/a2a',
      token: 'tok',
      authentication: { scheme: 'Bearer', credentials: 'secret' },
    };
    const created = await client.createTaskPushNotificationConfig(config);
    assert.equal(created.taskId, task.id);
    assert.equal(created.id, id);
    assert.equal(created.url, config.url);
    assert.equal(created.token, 'tok');
    assert.equal(created.authentication?.scheme, 'Bearer');

    const got = await client.getTaskPushNotificationConfig({ taskId: task.id, id });
    assert.equal(got.id, id);
    assert.equal(got.url, config.url);

    const listed = await client.listTaskPushNotificationConfig({ taskId: task.id });
    assert.deepEqual(listed.configs.map((c) => c.id), [id]);

    await client.deleteTaskPushNotificationConfig({ taskId: task.id, id });
    const after = await client.listTaskPushNotificationConfig({ taskId: task.id });
    assert.deepEqual(after.configs, []);

    assert.deepEqual(methods, METHODS[version]);
  });
}
