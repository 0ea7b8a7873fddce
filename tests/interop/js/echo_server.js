// An echo agent built on the official A2A JS SDK (@a2a-js/sdk 1.3.0 + express), for our CLI.
//
//     node echo_server.js PORT        (0 picks a free port)
//
// Serves on 127.0.0.1: the agent card at /.well-known/agent-card.json and JSON-RPC at /,
// speaking A2A v1.0 and, with the SDK's `legacyCompat`, v0.3. The JS SDK picks the
// version per request from the A2A-Version header (absent means 0.3), for the card as
// for JSON-RPC. HTTP+JSON (v1.0, the SDK's `restHandler`) is served under /rest and
// listed last in the card, so a client that walks the card's order picks JSON-RPC.
// Prints `listening on http://127.0.0.1:PORT/` once ready, then
// `rpc METHOD A2A-VERSION` for each JSON-RPC request (`-` when the header is missing)
// and `rest VERB PATH A2A-VERSION` for each HTTP+JSON one.
//
// Every message becomes a task: submitted -> working -> artifact `echo` with the
// user's text -> completed.
import { randomUUID } from 'node:crypto';
import express from 'express';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';
import { TaskState } from '@a2a-js/sdk';

const now = () => new Date().toISOString();
const status = (state) => ({ state, message: undefined, timestamp: now() });

const executor = {
  async execute(ctx, bus) {
    const { taskId, contextId } = ctx;
    const message = ctx.userMessage;
    const text = message.parts
      .filter((part) => part.content?.$case === 'text')
      .map((part) => part.content.value)
      .join('\n');
    if (!ctx.task) {
      bus.publish(AgentEvent.task({
        id: taskId, contextId, status: status(TaskState.TASK_STATE_SUBMITTED),
        artifacts: [], history: [message], metadata: undefined,
      }));
    }
    const update = (state) => AgentEvent.statusUpdate({
      taskId, contextId, status: status(state), metadata: undefined,
    });
    bus.publish(update(TaskState.TASK_STATE_WORKING));
    bus.publish(AgentEvent.artifactUpdate({
      taskId, contextId, append: false, lastChunk: true, metadata: undefined,
      artifact: {
        artifactId: randomUUID(), name: 'echo', description: '', metadata: undefined,
        extensions: [], parts: [{ content: { $case: 'text', value: text } }],
      },
    }));
    bus.publish(update(TaskState.TASK_STATE_COMPLETED));
    bus.finished();
  },
  async cancelTask(_taskId, bus) {
    bus.finished(); // the echo finishes at once: there is never a running task to stop
  },
};

const app = express();
const server = app.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  const url = `http://127.0.0.1:${server.address().port}/`;
  const jsonrpc = (protocolVersion) => ({ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion });
  const card = {
    name: 'SDK echo (JS)',
    description: 'Echoes the text it is sent (official @a2a-js/sdk server)',
    version: '1.0.0',
    supportedInterfaces: [
      jsonrpc('1.0'),
      jsonrpc('0.3'),
      { url: `${url}rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
    ],
    provider: undefined,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{
      id: 'echo', name: 'echo', description: 'Echoes the text', tags: ['echo'],
      examples: [], inputModes: [], outputModes: [], securityRequirements: [],
    }],
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const legacyCompat = { enabled: true };
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler, legacyCompat }));
  app.use('/rest', (req, _res, next) => {
    console.log('rest', req.method, req.originalUrl.split('?')[0], req.header('A2A-Version') ?? '-');
    next();
  });
  app.use('/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.post('/', express.json(), (req, _res, next) => {
    console.log('rpc', req.body?.method, req.header('A2A-Version') ?? '-');
    next();
  });
  app.use('/', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
  console.log(`listening on ${url}`);
});
