"""A minimal agent process for test_otlp_exporter.py, run by `a2a-emulator --agent-cmd`:
it listens on $PORT, answers `GET /ping` (`{"status": "Healthy"}`) and answers every
`POST /` with a JSON-RPC result, tracing each request with OpenTelemetry's Python SDK
configured by nothing but the environment the emulator gives it: the exporter
(`OTLPSpanExporter()`, no arguments) reads OTEL_EXPORTER_OTLP_ENDPOINT, the resource
(`Resource.create()`) reads OTEL_SERVICE_NAME. Each request's span continues the
caller's W3C `traceparent` (the SDK's default propagators) and names the session
(`session.id`, from AgentCore's session header); a child span stands for the work.
"""

import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.propagate import extract
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.trace import SpanKind

SESSION_HEADER = 'X-Amzn-Bedrock-AgentCore-Runtime-Session-Id'

provider = TracerProvider(resource=Resource.create())
# Each span is exported as it ends: the test reads it without waiting for a batch.
provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter()))
tracer = provider.get_tracer('otlp_agent')


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path == '/ping':
            self._reply(200, {'status': 'Healthy'})
        else:
            self._reply(404, {'error': 'not found'})

    def do_POST(self) -> None:
        length = int(self.headers.get('content-length') or 0)
        request = json.loads(self.rfile.read(length) or b'{}')
        method = request.get('method', '?')
        attributes = {'session.id': self.headers.get(SESSION_HEADER, ''), 'rpc.method': method}
        with tracer.start_as_current_span(
            f'agent {method}', context=extract(self.headers), kind=SpanKind.SERVER,
            attributes=attributes,
        ):
            with tracer.start_as_current_span('agent work'):
                result = {'echo': method, 'endpoint': os.environ.get('OTEL_EXPORTER_OTLP_ENDPOINT')}
        self._reply(200, {'jsonrpc': '2.0', 'id': request.get('id'), 'result': result})

    def _reply(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header('content-type', 'application/json')
        self.send_header('content-length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (http.server's name)
        print(f'otlp_agent {format % args}', flush=True)


if __name__ == '__main__':
    port = int(sys.argv[1] if len(sys.argv) > 1 else os.environ['PORT'])
    print(f'otlp_agent listening on http://127.0.0.1:{port}', flush=True)
    ThreadingHTTPServer(('127.0.0.1', port), Handler).serve_forever()
