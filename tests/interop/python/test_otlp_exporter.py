"""OpenTelemetry's own Python exporters (opentelemetry-exporter-otlp-proto-http, on
opentelemetry-sdk) into a2a-emulator's OTLP/HTTP receiver: a real exporter's protobuf
payload, gzipped as the SDK sends it when asked, is read span by span and metric by
metric; and an agent run by `--agent-cmd` exports to the emulator configured by nothing
but the environment the emulator gives it, continuing the caller's `traceparent`.

tests/interop/run.sh sets A2A_EMULATOR_BIN; each test starts its own emulator.
"""

import os
import shlex
import sys
import time
import uuid
from pathlib import Path

import httpx
import pytest

from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import SpanKind, Status, StatusCode

from own_emulator import emulator, needs_emulator

HERE = Path(__file__).resolve().parent
SESSION_HEADER = 'X-Amzn-Bedrock-AgentCore-Runtime-Session-Id'
pytestmark = needs_emulator


@pytest.fixture(autouse=True)
def no_otel_environment(monkeypatch):
    """The emulator (and its agents) see no OTEL_* of this machine's."""
    for name in [name for name in os.environ if name.startswith('OTEL_')]:
        monkeypatch.delenv(name)


def wait_for(read, timeout: float = 10):
    """`read()` once it returns something truthy, polling; fails after `timeout` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = read()
        if found:
            return found
        time.sleep(0.05)
    pytest.fail('nothing arrived in time')


def test_the_sdk_exporters_payloads_are_read_span_by_span_and_metric_by_metric():
    with emulator() as url:
        resource = Resource.create({'service.name': 'python-exporter'})
        traces = TracerProvider(resource=resource)
        traces.add_span_processor(BatchSpanProcessor(
            OTLPSpanExporter(endpoint=f'{url}/v1/traces', compression=Compression.Gzip)))
        tracer = traces.get_tracer('interop.test', '1.0')
        with tracer.start_as_current_span(
            'invoke agent', kind=SpanKind.CLIENT, attributes={'session.id': 's-python'},
        ) as root:
            with tracer.start_as_current_span('store call', attributes={'attempt': 2, 'ok': False}) as child:
                child.add_event('conflict', {'table': 'tasks'})
                child.set_status(Status(StatusCode.ERROR, 'ConditionalCheckFailed'))
        assert traces.force_flush(10_000)
        trace_id = format(root.get_span_context().trace_id, '032x')
        root_id = format(root.get_span_context().span_id, '016x')
        child_id = format(child.get_span_context().span_id, '016x')

        listed = httpx.get(f'{url}/_emulator/api/traces').json()
        assert [t['traceId'] for t in listed['traces']] == [trace_id]
        summary = listed['traces'][0]
        assert (summary['rootSpan'], summary['spanCount'], summary['sessionId'], summary['services']) == (
            'invoke agent', 2, 's-python', ['python-exporter'])
        trace = httpx.get(f'{url}/_emulator/api/traces/{trace_id}').json()
        spans = {span['name']: span for span in trace['spans']}
        assert spans['invoke agent']['spanId'] == root_id
        assert spans['invoke agent']['parentSpanId'] is None
        assert spans['invoke agent']['kind'] == 'client'
        assert spans['store call'] | {'start': '', 'startUnixNano': '', 'endUnixNano': '', 'offsetMs': 0,
                                      'durationMs': 0, 'events': []} == {
            'spanId': child_id, 'parentSpanId': root_id, 'name': 'store call', 'kind': 'internal',
            'service': 'python-exporter', 'scope': 'interop.test',
            'start': '', 'startUnixNano': '', 'endUnixNano': '', 'offsetMs': 0, 'durationMs': 0,
            'attributes': {'attempt': 2, 'ok': False},
            'status': {'code': 'error', 'message': 'ConditionalCheckFailed'}, 'events': [],
        }
        assert [(e['name'], e['attributes']) for e in spans['store call']['events']] == [
            ('conflict', {'table': 'tasks'})]
        assert int(spans['store call']['startUnixNano']) == child.start_time
        assert int(spans['store call']['endUnixNano']) == child.end_time
        traces.shutdown()

        meters = MeterProvider(resource=resource, metric_readers=[PeriodicExportingMetricReader(
            OTLPMetricExporter(endpoint=f'{url}/v1/metrics'), export_interval_millis=60_000)])
        counter = meters.get_meter('interop.test').create_counter('a2a.test.requests', unit='{request}')
        counter.add(2, {'rpc.method': 'SendMessage'})
        counter.add(1, {'rpc.method': 'SendMessage'})
        assert meters.force_flush(10_000)
        metrics = httpx.get(f'{url}/_emulator/api/metrics').json()
        (point,) = [m for m in metrics['metrics'] if m['name'] == 'a2a.test.requests']
        assert point | {'time': ''} == {
            'name': 'a2a.test.requests', 'unit': '{request}', 'description': '',
            'service': 'python-exporter', 'attributes': {'rpc.method': 'SendMessage'},
            'time': '', 'kind': 'sum', 'value': 3, 'monotonic': True,
        }
        assert metrics['rejectedPoints'] == 0
        meters.shutdown()


def test_an_agent_process_exports_to_the_emulator_by_its_environment_alone():
    command = f'exec {shlex.quote(sys.executable)} {shlex.quote(str(HERE / "otlp_agent.py"))}'
    with emulator('--agent-cmd', command) as url:
        session = f'otlp-agent-session-{uuid.uuid4()}'
        trace_id = uuid.uuid4().hex
        caller_span = uuid.uuid4().hex[:16]
        reply = httpx.post(url, headers={
            SESSION_HEADER: session, 'traceparent': f'00-{trace_id}-{caller_span}-01',
            'content-type': 'application/json',
        }, json={'jsonrpc': '2.0', 'id': 1, 'method': 'SendMessage', 'params': {}}, timeout=60)
        assert reply.status_code == 200, reply.text
        # The emulator gave the agent its own URL as the endpoint.
        assert reply.json()['result']['endpoint'] == url

        def read():
            got = httpx.get(f'{url}/_emulator/api/traces/{trace_id}')
            return got.json() if got.status_code == 200 and got.json()['spanCount'] == 2 else None

        trace = wait_for(read)
        server, work = trace['spans']
        assert (server['name'], server['kind'], server['parentSpanId'], server['service']) == (
            'agent SendMessage', 'server', caller_span, 'agent-cmd')
        assert server['attributes'] == {'session.id': session, 'rpc.method': 'SendMessage'}
        assert (work['name'], work['parentSpanId']) == ('agent work', server['spanId'])
        assert trace['sessionId'] == session
        # The invocation in the journal names the same trace, which is how the page links them.
        invocations = httpx.get(f'{url}/_emulator/api/invocations').json()['invocations']
        assert [i['traceId'] for i in invocations if i['method'] == 'SendMessage'] == [trace_id]
