"""A `traceparent` sent by the official A2A Python SDK's client is continued by our hosts
(issue: one trace across agents): the emulator (built with `otel`, the echo agent in
process) exports to an OTLP/HTTP receiver of this test's, in OTLP's JSON encoding
(`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`, https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding:
trace and span ids as hex), and every span of the send is in the caller's trace, the
front's span a child of the caller's span. W3C Trace Context:
https://www.w3.org/TR/trace-context/#traceparent-header.

The header is set on the SDK's httpx client by hand, as a caller without OpenTelemetry's
httpx instrumentation would.
"""

import json
import os
import secrets
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import quote

import httpx

from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.helpers import new_text_message
from a2a.types.a2a_pb2 import Role, SendMessageRequest, TaskState

from own_emulator import emulator, needs_emulator

pytestmark = needs_emulator

RUNTIME_ARN = 'arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/traced_agent-0123456789'
SESSION_HEADER = 'X-Amzn-Bedrock-AgentCore-Runtime-Session-Id'


class Receiver:
    """OTLP/HTTP JSON receiver: every span of every `POST /v1/traces`."""

    def __init__(self) -> None:
        self.spans: list[dict] = []
        lock = threading.Lock()
        spans = self.spans

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get('Content-Length', '0')))
                if self.path == '/v1/traces':
                    export = json.loads(body)
                    with lock:
                        for resource in export.get('resourceSpans', []):
                            for scope in resource.get('scopeSpans', []):
                                spans.extend(scope.get('spans', []))
                self.send_response(200)
                self.send_header('Content-Type', 'application/json')
                self.end_headers()
                self.wfile.write(b'{}')

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f'http://127.0.0.1:{self.server.server_address[1]}'

    def wait_for(self, wanted, timeout: float = 20.0) -> list[dict]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(wanted(span) for span in list(self.spans)):
                return list(self.spans)
            time.sleep(0.05)
        raise AssertionError(f'no such span came: {self.spans}')


def attributes(span: dict) -> dict:
    return {
        pair['key']: next(iter(pair['value'].values()), None) for pair in span.get('attributes', [])
    }


async def test_the_official_clients_traceparent_is_continued_by_the_front_and_the_agent():
    receiver = Receiver()
    trace_id = secrets.token_hex(16)
    caller_span = secrets.token_hex(8)
    session = f'traced-session-{uuid.uuid4()}'
    env = {
        'OTEL_EXPORTER_OTLP_ENDPOINT': receiver.url,
        'OTEL_EXPORTER_OTLP_PROTOCOL': 'http/json',
        'OTEL_METRICS_EXPORTER': 'none',
        'OTEL_BSP_SCHEDULE_DELAY': '50',
        'OTEL_SERVICE_NAME': 'traced-emulator',
    }
    with emulator(env=env) as base_url:
        url = f'{base_url}/runtimes/{quote(RUNTIME_ARN, safe="")}/invocations/'
        http = httpx.AsyncClient(
            headers={SESSION_HEADER: session, 'traceparent': f'00-{trace_id}-{caller_span}-01'},
            timeout=10,
        )
        try:
            card = await A2ACardResolver(http, url).get_agent_card()
            client = ClientFactory(ClientConfig(streaming=False, httpx_client=http)).create(card)
            request = SendMessageRequest(message=new_text_message('hello', role=Role.ROLE_USER))
            [event] = [e async for e in client.send_message(request)]
            assert event.task.status.state == TaskState.TASK_STATE_COMPLETED
            task_id = event.task.id

            spans = receiver.wait_for(
                lambda span: span['name'].startswith('invoke_agent ')
                and attributes(span).get('a2a.task.id') == task_id
            )
        finally:
            await http.aclose()
    receiver.server.shutdown()

    ours = [span for span in spans if span['traceId'] == trace_id]
    assert ours, f'no span continued trace {trace_id}: {spans}'
    fronts = [s for s in ours if s['name'].startswith('AgentCore POST /runtimes/')]
    sends = [s for s in ours if attributes(s).get('rpc.method') == 'SendMessage']
    runs = [s for s in ours if s['name'].startswith('invoke_agent ')]
    assert len(fronts) == 1 and len(sends) == 1 and len(runs) == 1, ours
    front, send, run = fronts[0], sends[0], runs[0]
    # The front continues the caller's span; the container the front's; the run the send's.
    assert front['parentSpanId'] == caller_span
    assert send['parentSpanId'] == front['spanId']
    assert run['parentSpanId'] == send['spanId']
    assert attributes(front)['session.id'] == session
    assert attributes(send)['a2a.task.id'] == task_id
