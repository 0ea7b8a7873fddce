// AWS's own JavaScript SDK v3 (@aws-sdk/client-bedrock-agentcore) against the emulator, as
// a JS user calls an A2A agent on AgentCore: both A2A versions (v1.0's A2A-Version header
// added by a middleware, since InvokeAgentRuntime models no such member), each platform
// refusal as the modelled exception, standard retry retrying a throttle and a retryable
// conflict (and nothing else), and StopRuntimeSession. tests/interop/run.sh sets
// A2A_EMULATOR_BIN; each test starts its own emulator.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { skip, startEmulator } from './own_emulator.js';
import {
  BedrockAgentCoreClient,
  InvokeAgentRuntimeCommand,
  StopRuntimeSessionCommand,
} from '@aws-sdk/client-bedrock-agentcore';

const ARN = 'arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/aws_js-0123456789';
const start = startEmulator;

/** The emulator's client; `version` '1.0' adds A2A-Version to every request. */
function client(base, { version = '0.3', maxAttempts = 1 } = {}) {
  const agentcore = new BedrockAgentCoreClient({
    endpoint: base,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDJSTEST', secretAccessKey: 'js-test-secret' },
    maxAttempts,
  });
  if (version !== '0.3') {
    agentcore.middlewareStack.add(
      (next) => async (args) => {
        args.request.headers['a2a-version'] = version;
        return next(args);
      },
      { step: 'build', name: 'a2aVersion' },
    );
  }
  return agentcore;
}

const session = () => `aws-js-session-${randomUUID()}`;
const rpc = (method, params, id = 'j-1') =>
  new TextEncoder().encode(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
const v03 = (text) => ({ message: { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text }] } });
const v10 = (text) => ({ message: { role: 'ROLE_USER', messageId: randomUUID(), parts: [{ text }] } });

function invoke(agentcore, payload, runtimeSessionId = session()) {
  return agentcore.send(
    new InvokeAgentRuntimeCommand({
      agentRuntimeArn: ARN,
      runtimeSessionId,
      contentType: 'application/json',
      accept: 'application/json, text/event-stream',
      payload,
    }),
  );
}

async function withEmulator(args, body) {
  const [base, child] = await start(args);
  try {
    await body(base);
  } finally {
    child.kill('SIGTERM');
  }
}

test('both versions answer, v1.0 through a middleware', { skip }, async () => {
  await withEmulator([], async (base) => {
    const old = await invoke(client(base), rpc('message/send', v03('hello')));
    assert.equal(old.statusCode, 200);
    assert.match(old.contentType, /^application\/json/);
    const oldBody = JSON.parse(await old.response.transformToString());
    assert.equal(oldBody.result.status.state, 'completed');
    const next = await invoke(client(base, { version: '1.0' }), rpc('SendMessage', v10('hello')));
    const nextBody = JSON.parse(await next.response.transformToString());
    assert.equal(nextBody.result.task.status.state, 'TASK_STATE_COMPLETED');
  });
});

const refusals = [
  ['throttle=1', 'ThrottlingException', 429, 3],
  ['conflict=1', 'RetryableConflictException', 409, 3],
  ['runtime-error=1', 'RuntimeClientError', 424, 1],
  ['access-denied=1', 'AccessDeniedException', 403, 1],
];
for (const [fault, name, status, attempts] of refusals) {
  test(`--fault ${fault} is ${name}`, { skip }, async () => {
    await withEmulator(['--fault', fault], async (base) => {
      await assert.rejects(invoke(client(base, { maxAttempts: 3 }), rpc('message/send', v03('x'))), (error) => {
        assert.equal(error.name, name);
        assert.equal(error.$metadata.httpStatusCode, status);
        assert.ok(error.$metadata.requestId, 'a request id');
        // Standard retry retries a throttle and a retryable conflict, not the rest.
        assert.equal(error.$metadata.attempts, attempts);
        return true;
      });
    });
  });
}

test('StopRuntimeSession ends a session; a second stop is not found', { skip }, async () => {
  await withEmulator([], async (base) => {
    const agentcore = client(base);
    const id = session();
    await invoke(agentcore, rpc('message/send', v03('hi')), id);
    const stopped = await agentcore.send(new StopRuntimeSessionCommand({ agentRuntimeArn: ARN, runtimeSessionId: id }));
    assert.equal(stopped.runtimeSessionId, id);
    await assert.rejects(
      agentcore.send(new StopRuntimeSessionCommand({ agentRuntimeArn: ARN, runtimeSessionId: id })),
      (error) => error.name === 'ResourceNotFoundException',
    );
  });
});
