"""AWS's own Python SDK against the emulator: boto3's `bedrock-agentcore` client calls
InvokeAgentRuntime and StopRuntimeSession as a Python user calls an A2A agent on
AgentCore. Both A2A versions (v1.0's `A2A-Version` header added by a botocore event
handler, since the operation models no such member), a stream read line by line while the
task still works, the trace context returned, each platform refusal as the modelled
exception with its status and request id, and the standard retry mode retrying what the
model marks retryable (a throttle, a session that is starting) and nothing else.

tests/interop/run.sh sets A2A_EMULATOR_BIN; each test starts its own emulator.
"""

import json
import uuid

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from own_emulator import emulator, needs_emulator

ARN = 'arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/boto3_agent-0123456789'
OTHER_ARN = 'arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/other_agent-0123456789'
pytestmark = needs_emulator


def client(base: str, version: str = '0.3', attempts: int = 1):
    """boto3's client of the emulator at `base`: standard retry with `attempts` in all, and
    `A2A-Version` on every invocation for v1.0. Client-side validation is off so that the
    emulator, not botocore, judges a bad session id."""
    agentcore = boto3.client(
        'bedrock-agentcore',
        region_name='us-east-1',
        endpoint_url=base,
        aws_access_key_id='AKIDBOTO3TEST',
        aws_secret_access_key='boto3-test-secret',
        config=Config(retries={'mode': 'standard', 'total_max_attempts': attempts},
                      parameter_validation=False),
    )
    if version != '0.3':
        def add_version(request, **_):
            request.headers['A2A-Version'] = version
        agentcore.meta.events.register('before-sign.bedrock-agentcore.InvokeAgentRuntime', add_version)
    return agentcore


def session() -> str:
    return f'boto3-session-{uuid.uuid4()}'


def rpc(method: str, params: dict, id_: str = 'b-1') -> bytes:
    return json.dumps({'jsonrpc': '2.0', 'id': id_, 'method': method, 'params': params}).encode()


def message_v03(text: str, message_id: str = 'm-1') -> dict:
    return {'message': {'kind': 'message', 'role': 'user', 'messageId': message_id,
                        'parts': [{'kind': 'text', 'text': text}]}}


def message_v10(text: str, message_id: str = 'm-1') -> dict:
    return {'message': {'role': 'ROLE_USER', 'messageId': message_id, 'parts': [{'text': text}]}}


def invoke(agentcore, payload: bytes, session_id: str, arn: str = ARN, **extra):
    return agentcore.invoke_agent_runtime(
        agentRuntimeArn=arn, runtimeSessionId=session_id, payload=payload,
        contentType='application/json', accept='application/json, text/event-stream', **extra,
    )


def test_both_versions_answer_v1_0_through_an_event_handler():
    with emulator() as base:
        old = invoke(client(base), rpc('message/send', message_v03('hello')), session())
        assert old['statusCode'] == 200
        assert old['contentType'].startswith('application/json')
        body = json.loads(old['response'].read())
        assert body['id'] == 'b-1'
        assert body['result']['status']['state'] == 'completed', body
        new = invoke(client(base, '1.0'), rpc('SendMessage', message_v10('hello')), session())
        body = json.loads(new['response'].read())
        assert body['result']['task']['status']['state'] == 'TASK_STATE_COMPLETED', body


def test_a_stream_is_read_while_its_task_works_then_ends_with_it():
    with emulator('--agent', 'conformance') as base:
        agentcore = client(base)
        session_id = session()
        out = invoke(agentcore, rpc('message/stream', message_v03('wait', 'slow-boto3-stream')), session_id)
        assert out['contentType'].startswith('text/event-stream')
        # botocore reads 1024-byte chunks by default, which would wait for the stream's end.
        lines = out['response'].iter_lines(chunk_size=1)
        first = None
        for line in lines:
            if line.startswith(b'data:'):
                first = json.loads(line[len(b'data:'):])
                break
        assert first is not None and first['id'] == 'b-1', first
        task_id = first['result']['id']
        canceled = invoke(agentcore, rpc('tasks/cancel', {'id': task_id}, 'c-1'), session_id)
        assert json.loads(canceled['response'].read())['result']['status']['state'] == 'canceled'
        events = [json.loads(line[len(b'data:'):]) for line in lines if line.startswith(b'data:')]
        assert events[-1]['result']['final'] is True, events
        assert events[-1]['result']['status']['state'] == 'canceled', events


def test_the_trace_context_comes_back():
    with emulator() as base:
        out = invoke(
            client(base), rpc('message/send', message_v03('hi')), session(),
            traceId='Root=1-67891233-abcdef012345678912345678;Sampled=1',
            traceParent='00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
            traceState='vendor=1', baggage='userId=alice',
        )
        assert out['traceId'] == 'Root=1-67891233-abcdef012345678912345678;Sampled=1'
        assert out['traceParent'] == '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'
        assert out['traceState'] == 'vendor=1'
        assert out['baggage'] == 'userId=alice'


def refused(call) -> ClientError:
    with pytest.raises(ClientError) as caught:
        call()
    return caught.value


@pytest.mark.parametrize('fault,code,status,retried', [
    ('throttle=1', 'ThrottlingException', 429, True),
    ('conflict=1', 'RetryableConflictException', 409, True),
    ('runtime-error=1', 'RuntimeClientError', 424, False),
    ('internal=1', 'InternalServerException', 500, True),
    ('access-denied=1', 'AccessDeniedException', 403, False),
])
def test_each_platform_refusal_is_the_modelled_exception(fault, code, status, retried):
    with emulator('--fault', fault) as base:
        error = refused(lambda: invoke(client(base, attempts=3), rpc('message/send', message_v03('x')), session()))
        assert error.response['Error']['Code'] == code, error.response
        meta = error.response['ResponseMetadata']
        assert meta['HTTPStatusCode'] == status
        assert meta['RequestId'], meta
        # Standard retry retries throttles, retryable conflicts and 5xx; not the rest.
        assert meta['RetryAttempts'] == (2 if retried else 0), meta


def test_validation_not_found_and_quota():
    with emulator('--runtime-arn', OTHER_ARN, '--max-sessions', '1') as base:
        agentcore = client(base, attempts=3)
        short = refused(lambda: invoke(agentcore, rpc('message/send', message_v03('x')), 'too-short', OTHER_ARN))
        assert short.response['Error']['Code'] == 'ValidationException'
        assert short.response['ResponseMetadata']['HTTPStatusCode'] == 400
        missing = refused(lambda: invoke(agentcore, rpc('message/send', message_v03('x')), session(), ARN))
        assert missing.response['Error']['Code'] == 'ResourceNotFoundException'
        assert missing.response['ResponseMetadata']['RetryAttempts'] == 0
        invoke(agentcore, rpc('message/send', message_v03('x')), session(), OTHER_ARN)
        quota = refused(lambda: invoke(agentcore, rpc('message/send', message_v03('x')), session(), OTHER_ARN))
        assert quota.response['Error']['Code'] == 'ServiceQuotaExceededException'
        assert quota.response['ResponseMetadata']['HTTPStatusCode'] == 402


def test_stop_runtime_session_then_a_second_stop_is_not_found():
    with emulator() as base:
        agentcore = client(base)
        session_id = session()
        invoke(agentcore, rpc('message/send', message_v03('hi')), session_id)
        stopped = agentcore.stop_runtime_session(agentRuntimeArn=ARN, runtimeSessionId=session_id)
        assert stopped['ResponseMetadata']['HTTPStatusCode'] == 200
        assert stopped['runtimeSessionId'] == session_id
        again = refused(lambda: agentcore.stop_runtime_session(agentRuntimeArn=ARN, runtimeSessionId=session_id))
        assert again.response['Error']['Code'] == 'ResourceNotFoundException'
