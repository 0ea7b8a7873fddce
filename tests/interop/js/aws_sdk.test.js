// AWS's own JavaScript SDK v3 (@aws-sdk/client-bedrock-agentcore) against the emulator, as
// a JS user calls an A2A agent on AgentCore: both A2A versions (v1.0's A2A-Version header
// added by a middleware, since InvokeAgentRuntime models no such member), a stream read
// event by event while its task works, each platform refusal as the modelled exception
// (ValidationException, ResourceNotFoundException and ServiceQuotaExceededException
// included), standard retry retrying a throttle, a retryable conflict and an internal
// error (and nothing else), and StopRuntimeSession. tests/interop/run.sh sets
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
const OTHER_ARN = 'arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/other_js-0123456789';
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
const v03 = (text, messageId = randomUUID()) => ({ message: { kind: 'message', role: 'user', messageId, parts: [{ kind: 'text', text }] } });
const v10 = (text) => ({ message: { role: 'ROLE_USER', messageId: randomUUID(), parts: [{ text }] } });

function invoke(agentcore, payload, runtimeSessionId = session(), agentRuntimeArn = ARN) {
  return agentcore.send(
    new InvokeAgentRuntimeCommand({
      agentRuntimeArn,
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

/** Reads the SSE `data:` events of `body` (a Node stream) one at a time, as they arrive. */
async function* events(body) {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, end).replace(/\r$/, '');
      buffered = buffered.slice(end + 1);
      if (line.startsWith('data:')) yield JSON.parse(line.slice('data:'.length));
    }
  }
}

test('a stream is read while its task works, then ends with it', { skip }, async () => {
  await withEmulator(['--agent', 'conformance'], async (base) => {
    const agentcore = client(base);
    const id = session();
    const out = await invoke(agentcore, rpc('message/stream', v03('wait', 'slow-js-stream'), 'j-s'), id);
    assert.equal(out.statusCode, 200);
    assert.match(out.contentType, /^text\/event-stream/);
    const stream = events(out.response);
    // The first event comes while the task works (a `slow-` task works until canceled):
    // the body is read as it arrives, not at its end.
    const first = (await stream.next()).value;
    assert.equal(first.id, 'j-s');
    const taskId = first.result.id;
    const canceled = await invoke(agentcore, rpc('tasks/cancel', { id: taskId }, 'j-c'), id);
    const cancelBody = JSON.parse(await canceled.response.transformToString());
    assert.equal(cancelBody.result.status.state, 'canceled');
    const rest = [];
    for await (const event of stream) rest.push(event);
    const last = rest.at(-1);
    assert.equal(last.result.final, true, JSON.stringify(rest));
    assert.equal(last.result.status.state, 'canceled', JSON.stringify(rest));
  });
});

test('a bad session id, an unknown runtime and the session quota are modelled exceptions', { skip }, async () => {
  await withEmulator(['--runtime-arn', OTHER_ARN, '--max-sessions', '1'], async (base) => {
    const agentcore = client(base, { maxAttempts: 3 });
    const send = () => rpc('message/send', v03('x'));
    await assert.rejects(invoke(agentcore, send(), 'too-short', OTHER_ARN), (error) => {
      assert.equal(error.name, 'ValidationException');
      assert.equal(error.$metadata.httpStatusCode, 400);
      assert.equal(error.$metadata.attempts, 1);
      return true;
    });
    await assert.rejects(invoke(agentcore, send(), session(), ARN), (error) => {
      assert.equal(error.name, 'ResourceNotFoundException');
      assert.equal(error.$metadata.httpStatusCode, 404);
      assert.equal(error.$metadata.attempts, 1);
      return true;
    });
    const first = await invoke(agentcore, send(), session(), OTHER_ARN);
    assert.equal(first.statusCode, 200);
    await assert.rejects(invoke(agentcore, send(), session(), OTHER_ARN), (error) => {
      assert.equal(error.name, 'ServiceQuotaExceededException');
      assert.equal(error.$metadata.httpStatusCode, 402);
      assert.ok(error.$metadata.requestId, 'a request id');
      return true;
    });
  });
});

const refusals = [
  ['throttle=1', 'ThrottlingException', 429, 3],
  ['conflict=1', 'RetryableConflictException', 409, 3],
  ['internal=1', 'InternalServerException', 500, 3],
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
        // Standard retry retries a throttle, a retryable conflict and a 5xx, not the rest.
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
