// The official A2A JS SDK through `a2a-emulator --auth jwt`, with a token from
// `a2a-emulator token` added by the SDK's fetch hook (fetchImpl). Without it the
// invocation URL answers AgentCore's 401. tests/interop/run.sh sets A2A_EMULATOR_BIN;
// this test starts its own emulator.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { EMULATOR, env, skip, startEmulator } from './own_emulator.js';
import { Role, TaskState } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';

const ARN = 'arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/jwt_js-0123456789';

/** Starts the emulator with --auth jwt; resolves to [base URL, process]. */
const start = (state) => startEmulator(['--auth', 'jwt', '--state-dir', state]);

test('the official client passes with a bearer token', { skip }, async () => {
  const state = mkdtempSync(join(tmpdir(), 'a2a-jwt-js-'));
  const [base, child] = await start(state);
  try {
    const url = `${base}/runtimes/${encodeURIComponent(ARN)}/invocations/`;
    const refused = await fetch(`${url}.well-known/agent-card.json`);
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get('www-authenticate'), /^Bearer resource_metadata="/);

    const token = execFileSync(EMULATOR, ['token', '--sub', 'js-user', '--state-dir', state], { env })
      .toString()
      .trim();
    const session = `jwt-js-session-${randomUUID()}`;
    const fetchImpl = (input, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set('Authorization', `Bearer ${token}`);
      headers.set('X-Amzn-Bedrock-AgentCore-Runtime-Session-Id', session);
      return fetch(input, { ...init, headers });
    };
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl })],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      }),
    );
    const client = await factory.createFromUrl(url);
    const text = `with a token ${randomUUID()}`;
    const task = await client.sendMessage({
      message: { messageId: randomUUID(), role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: text } }] },
    });
    assert.equal(task.status.state, TaskState.TASK_STATE_COMPLETED);
    assert.deepEqual(task.artifacts.map((a) => a.parts.map((p) => p.content.value).join('')), [text]);
  } finally {
    child.kill('SIGTERM');
    rmSync(state, { recursive: true, force: true });
  }
});
