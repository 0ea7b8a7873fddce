#!/usr/bin/env python3
"""Offline checks of infra/: no AWS account, no network.

    .venv-tools/bin/python infra/check.py [--crate DIR [--binary PATH]] [SECTION ...]
    (default: every section; scaffold only with --crate)

Sections:
  template    cfn-lint (zero errors, zero warnings) of the template and of SAM's output,
              then the settings cfn-lint does not check in a SAM template, evaluated for
              each way the parameters can be set
  env         the function's variables (template and Cargo.toml) against the names the
              binary reads (VARIABLES in functions/lambda/src/config.rs, and
              A2A_AGENT in functions/a2a-agent/src/main.rs)
  dockerfile  infra/agentcore/Dockerfile: hadolint, and the AgentCore rules
  policy      infra/agentcore/caller-policy.json
  bootstrap   target/lambda/a2a-agent/bootstrap (from `cargo lambda build --profile lambda-release`, `make package`)
  deploy      infra/deploy-lambda.sh --dry (cargo lambda deploy --dry; packages the
              cargo-lambda bootstrap if built, else target/debug/a2a-agent)
  bedrock-chat  infra/bedrock-chat/ (the examples/bedrock-chat agent): cfn-lint of its
              template and SAM's output, its role (the task store, its logs, and
              ConverseStream on the one model), its variables against the example's, the
              Dockerfile (hadolint, the AgentCore rules) and the AgentCore role policy
  scaffold    a crate `a2a new` wrote (--crate DIR; --binary PATH: its built binary, for
              the dry run of its deploy-lambda.sh): its template.yaml as the template
              section checks infra's, its Cargo.toml deploy settings and profiles, its
              deploy-lambda.sh (and its dry run), its Dockerfile and request-headers.json

template and env need cfn-lint and aws-sam-translator (.venv-tools); dockerfile needs
hadolint, deploy needs cargo-lambda (all in .venv-tools). Ends with "N passed, N failed".
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / ".venv-tools" / "bin"
FUNCTION = ROOT / "functions" / "a2a-agent"
TEMPLATE = ROOT / "infra" / "template.yaml"
DOCKERFILE = ROOT / "infra" / "agentcore" / "Dockerfile"
BOOTSTRAP = ROOT / "target" / "lambda" / "a2a-agent" / "bootstrap"

results = {"passed": 0, "failed": 0}


def check(ok, what, detail=""):
    results["passed" if ok else "failed"] += 1
    print(f"{'ok  ' if ok else 'FAIL'} {what}" + (f"\n     {detail}" if detail and not ok else ""))
    return ok


def tool(name):
    found = TOOLS / name if (TOOLS / name).exists() else shutil.which(name)
    if not found:
        sys.exit(f"{name} is not installed: `make infra-check` installs it into .venv-tools")
    return str(found)


def rust_source(path):
    return (ROOT / path).read_text()


def binary_variables():
    """The names in `VARIABLES` (functions/lambda/src/config.rs), and `A2A_AGENT` when the
    function's main reads it (functions/a2a-agent/src/main.rs)."""
    source = rust_source("functions/lambda/src/config.rs")
    body = re.search(r"pub const VARIABLES: \[&str; \d+\] = \[(.*?)\];", source, re.S)
    if not body:
        sys.exit("VARIABLES not found in functions/lambda/src/config.rs")
    names = set(re.findall(r'"([A-Z0-9_]+)"', body.group(1)))
    if 'std::env::var("A2A_AGENT")' in rust_source("functions/a2a-agent/src/main.rs"):
        names.add("A2A_AGENT")
    return names


def store_facts():
    """The DynamoDB actions the task store calls (every module of stores/dynamodb/src), its
    index, and its TTL attribute."""
    modules = sorted((ROOT / "stores/dynamodb/src").glob("*.rs"))
    every_source = "".join(path.read_text() for path in modules)
    calls = set(re.findall(r"\.client\s*\.(\w+)\(\)", every_source))
    # Sharing the client with another store (`.client.clone()`) is no DynamoDB call.
    calls.discard("clone")
    # A transaction's Put is authorized as PutItem (DynamoDB Developer Guide, "Using IAM
    # with DynamoDB transactions"): TransactWriteItems is no IAM action of its own.
    calls = {"put_item" if call == "transact_write_items" else call for call in calls}
    actions = {"dynamodb:" + "".join(w.capitalize() for w in call.split("_")) for call in calls}
    index = re.search(r'pub const OWNER_INDEX: &str = "([^"]+)"', every_source).group(1)
    ttl = re.search(r'pub const EXPIRES_AT: &str = "([^"]+)"', every_source).group(1)
    return actions, index, ttl


# --- the template, evaluated for given parameter values -----------------------------------

NO_VALUE = object()


def evaluate(node, params, conditions):
    """`node` as CloudFormation sees it: Ref to a parameter, Fn::If, Fn::Equals, Fn::Not and
    AWS::NoValue resolved; every other intrinsic (resource refs, GetAtt, Sub) kept as is."""
    if isinstance(node, list):
        items = (evaluate(item, params, conditions) for item in node)
        return [item for item in items if item is not NO_VALUE]
    if not isinstance(node, dict):
        return node
    if len(node) == 1:
        ((key, arg),) = node.items()
        if key == "Ref" and arg == "AWS::NoValue":
            return NO_VALUE
        if key == "Ref" and arg in params:
            return params[arg]
        if key == "Condition" and isinstance(arg, str):
            return conditions[arg]
        if key == "Fn::If":
            name, yes, no = arg
            return evaluate(yes if conditions[name] else no, params, conditions)
        if key == "Fn::Equals":
            left, right = (evaluate(side, params, conditions) for side in arg)
            return str(left) == str(right)
        if key == "Fn::Not":
            return not evaluate(arg[0], params, conditions)
        if key == "Fn::And":
            return all(evaluate(part, params, conditions) for part in arg)
        if key == "Fn::Join":
            delimiter, items = arg
            items = evaluate(items, params, conditions)
            if isinstance(items, str):  # a CommaDelimitedList parameter's value
                items = items.split(",") if items else []
            return delimiter.join(str(item) for item in items)
    out = {}
    for key, value in node.items():
        value = evaluate(value, params, conditions)
        if value is not NO_VALUE:
            out[key] = value
    return out


def deployed(template, overrides):
    """The resources deployed with these parameter values (the others at their defaults)."""
    params = {name: str(p.get("Default", "")) for name, p in template["Parameters"].items()}
    params.update(overrides)
    conditions = {}
    for name, expr in template.get("Conditions", {}).items():  # each may name those above
        conditions[name] = evaluate(expr, params, conditions)
    return {
        name: evaluate(resource, params, conditions)
        for name, resource in template["Resources"].items()
        if conditions.get(resource.get("Condition"), True)
    }


def load_template():
    try:
        from cfnlint.decode import cfn_yaml
    except ImportError:
        sys.exit("cfn-lint is not installed: run with .venv-tools/bin/python (`make infra-check`)")
    return cfn_yaml.load(str(TEMPLATE))


def sam_transform(template, function="A2aAgent"):
    """The CloudFormation that SAM makes of the template (what is deployed), offline."""
    import boto3
    from samtranslator.parser.parser import Parser
    from samtranslator.translator.translator import Translator

    sam = json.loads(json.dumps(template))
    for name in (function, f"{function}Managed"):
        if name in sam["Resources"]:
            sam["Resources"][name]["Properties"]["CodeUri"] = "s3://bucket/function.zip"  # `sam package`
    translator = Translator(None, Parser(), boto_session=boto3.session.Session(region_name="us-east-1"))
    return translator.translate(sam, parameter_values={}, get_managed_policy_map=dict)


SCENARIOS = {
    "defaults": {},
    "Auth=API_KEY": {"Auth": "API_KEY", "ApiKey": "k" * 16},
    "Tracing=Active": {"Tracing": "Active"},
    "Bindings=jsonrpc": {"Bindings": "jsonrpc"},
}

# Lambda Managed Instances (infra/template.yaml only): the function on a capacity
# provider, its URL on the alias SAM publishes.
MANAGED = {"CapacityProviderSubnetIds": "subnet-0a,subnet-0b"}
MANAGED_SCENARIOS = {
    "Managed Instances": MANAGED,
    "Managed Instances, Auth=API_KEY": {**MANAGED, "Auth": "API_KEY", "ApiKey": "k" * 16},
    "Managed Instances, MaxConcurrency=16": {**MANAGED, "MaxConcurrency": "16",
                                             "CapacityProviderSecurityGroupIds": "sg-0a"},
}


def statements(role):
    for policy in role["Properties"].get("Policies", []):
        for statement in policy["PolicyDocument"]["Statement"]:
            actions = statement["Action"]
            yield statement, set([actions] if isinstance(actions, str) else actions)


def lint(path, what):
    run = subprocess.run([tool("cfn-lint"), "--", str(path)], capture_output=True, text=True)
    check(run.returncode == 0 and not run.stdout.strip(), f"cfn-lint {what}: no error, no warning",
          run.stdout + run.stderr)


def check_url(scenario, made, api_key, function="A2aAgent", target=None):
    """The Function URL and who may call it, in SAM's output for one scenario; `target`:
    what the URL invokes (the function, or its alias)."""
    target = target or function
    urls = {n: r["Properties"] for n, r in made.items() if r["Type"] == "AWS::Lambda::Url"}
    url = urls.get(f"{function}Url", {})
    check(list(urls) == [f"{function}Url"] and url.get("TargetFunctionArn") == {"Ref": target},
          f"{scenario}: one Function URL, {function}Url (the outputs' name), on {target}")
    check(url.get("InvokeMode") == "RESPONSE_STREAM", f"{scenario}: URL invoke mode RESPONSE_STREAM")
    auth = "NONE" if api_key else "AWS_IAM"
    check(url.get("AuthType") == auth, f"{scenario}: URL auth {auth}", str(url))
    grants = sorted(json.dumps(r["Properties"], sort_keys=True)
                    for r in made.values() if r["Type"] == "AWS::Lambda::Permission")
    public = [
        {"Action": "lambda:InvokeFunctionUrl", "FunctionName": {"Ref": target},
         "Principal": "*", "FunctionUrlAuthType": "NONE"},
        {"Action": "lambda:InvokeFunction", "FunctionName": {"Ref": target},
         "Principal": "*", "InvokedViaFunctionUrl": True},
    ]
    expected = sorted(json.dumps(grant, sort_keys=True) for grant in public) if api_key else []
    check(grants == expected, f"{scenario}: " + ("anyone may call, through the URL only"
                                                 if api_key else "no grant to anyone"), "\n".join(grants))


def check_role(scenario, resources, tracing, function="A2aAgent"):
    """The role's actions: the task store's calls, its logs, X-Ray with tracing on."""
    store_actions, index, _ = store_facts()
    actions = set()
    for statement, allowed in statements(resources["FunctionRole"]):
        sid = statement.get("Sid")
        check(statement["Effect"] == "Allow" and "*" not in allowed, f"{scenario}: {sid}: no wildcard action")
        actions |= allowed
        if any(a.startswith("dynamodb:") for a in allowed):
            on_index = statement["Resource"] == {"Fn::Sub": f"${{TaskTable.Arn}}/index/{index}"}
            on_table = statement["Resource"] == {"Fn::GetAtt": ["TaskTable", "Arn"]}
            expected = {"dynamodb:Query"} if on_index else store_actions - {"dynamodb:Query"}
            check((on_index or on_table) and allowed == expected,
                  f"{scenario}: {sid}: {sorted(expected)} on the {'index' if on_index else 'table'}",
                  f"{sorted(allowed)} on {statement['Resource']}")
        if any(a.startswith("logs:") for a in allowed):
            check(statement["Resource"] == {"Fn::GetAtt": ["LogGroup", "Arn"]},
                  f"{scenario}: {sid}: only to the function's log group")
    xray = {"xray:PutTraceSegments", "xray:PutTelemetryRecords"} if tracing else set()
    expected = {"logs:CreateLogStream", "logs:PutLogEvents"} | store_actions | xray
    check(actions == expected, f"{scenario}: the role's actions are exactly {sorted(expected)}",
          f"extra {sorted(actions - expected)}, missing {sorted(expected - actions)}")
    props = resources[function]["Properties"]
    check(not resources["FunctionRole"]["Properties"].get("ManagedPolicyArns")
          and "Policies" not in props and props.get("Role") == {"Fn::GetAtt": ["FunctionRole", "Arn"]},
          f"{scenario}: the function has this role and no other policy")


def check_function(template):
    fn = template["Resources"]["A2aAgent"]
    props = fn["Properties"]
    check(props["Runtime"] == "provided.al2023", "runtime provided.al2023")
    check(props["Architectures"] == ["arm64"], "architecture arm64")
    check(props["Handler"] == "bootstrap", "handler bootstrap")
    bins = [b["name"] for b in tomllib.loads((FUNCTION / "Cargo.toml").read_text()).get("bin", [])]
    check(fn["Metadata"]["BuildMethod"] == "rust-cargolambda"
          and fn["Metadata"]["BuildProperties"]["Binary"] in bins,
          "built by rust-cargolambda, as the crate's binary")
    members = tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["members"]
    check((TEMPLATE.parent / props["CodeUri"]).resolve() == ROOT
          and str(FUNCTION.relative_to(ROOT)) in members,
          "CodeUri is the workspace that has the function's crate")
    logs = template["Resources"]["LogGroup"]["Properties"]
    check(props["LoggingConfig"] == {"LogGroup": {"Ref": "LogGroup"}}
          and logs["RetentionInDays"] == {"Ref": "LogRetentionDays"},
          "logs go to a log group with the retention parameter")
    outputs = {name: evaluate(output["Value"], {}, {"ManagedInstances": False})
               for name, output in template["Outputs"].items()}
    check(outputs["FunctionUrl"] == {"Fn::GetAtt": ["A2aAgentUrl", "FunctionUrl"]}
          and outputs["CardUrl"]
          == {"Fn::Sub": "${A2aAgentUrl.FunctionUrl}.well-known/agent-card.json"},
          "outputs: the function URL and the card URL")


def check_table(template):
    _, index, ttl = store_facts()
    table = template["Resources"]["TaskTable"]["Properties"]
    check(table["BillingMode"] == "PAY_PER_REQUEST", "table on demand (PAY_PER_REQUEST)")
    check(table["TimeToLiveSpecification"] == {"AttributeName": ttl, "Enabled": True},
          f"table TTL on {ttl} (the store's expiry attribute)")
    check(table["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True},
          "point-in-time recovery")
    types = {a["AttributeName"]: a["AttributeType"] for a in table["AttributeDefinitions"]}
    check(table["KeySchema"] == [{"AttributeName": "id", "KeyType": "HASH"}] and types["id"] == "S",
          "key: id (S)")
    gsi = {g["IndexName"]: g for g in table.get("GlobalSecondaryIndexes", [])}.get(index, {})
    projection = gsi.get("Projection", {})
    check(gsi.get("KeySchema") == [{"AttributeName": "owner", "KeyType": "HASH"},
                                   {"AttributeName": "statusTimestamp", "KeyType": "RANGE"}]
          and types.get("owner") == types.get("statusTimestamp") == "S"
          and (projection.get("ProjectionType") == "ALL"
               or {"contextId", "state", ttl} <= set(projection.get("NonKeyAttributes", []))),
          f"index {index}: owner/statusTimestamp, projecting contextId, state and {ttl}")
    check(len(table.get("GlobalSecondaryIndexes", [])) == 1, "no index the store does not query")


def check_template():
    lint(TEMPLATE, "of the template")
    template = load_template()
    cfn = sam_transform(template)
    with tempfile.NamedTemporaryFile("w", suffix=".json") as transformed:
        json.dump(cfn, transformed)
        transformed.flush()
        lint(transformed.name, "of SAM's output (the CloudFormation deployed)")

    store_actions, _, _ = store_facts()
    check({"dynamodb:GetItem", "dynamodb:PutItem"} <= store_actions,
          f"the task store's calls are found in dynamo.rs: {sorted(store_actions)}")
    params = template["Parameters"]
    check({"Agent", "Auth", "ApiKey", "MemorySize", "Timeout", "Tracing", "LogRetentionDays"}
          <= params.keys(), "parameters: agent, auth, API key, memory, timeout, tracing, logs")
    check(params["ApiKey"].get("NoEcho") is True, "ApiKey is NoEcho")
    check(params["Auth"]["Default"] == "AWS_IAM", "Auth defaults to AWS_IAM")

    for scenario, overrides in SCENARIOS.items():
        tracing = overrides.get("Tracing") == "Active"
        resources = deployed(template, overrides)
        check(resources["A2aAgent"]["Properties"].get("Tracing") == ("Active" if tracing else "PassThrough"),
              f"{scenario}: tracing")
        check("A2aAgentManaged" not in resources and "CapacityProvider" not in resources,
              f"{scenario}: Lambda's default model (no capacity provider)")
        check_url(scenario, deployed(cfn, overrides), overrides.get("Auth") == "API_KEY")
        check_role(scenario, resources, tracing)
    for scenario, overrides in MANAGED_SCENARIOS.items():
        check_managed(template, cfn, scenario, overrides)
    check_function(template)
    check_table(template)


def check_managed(template, cfn, scenario, overrides, function="A2aAgent"):
    """One way of deploying on Lambda Managed Instances: the function on the capacity
    provider (the same settings as the default one but its memory), the provider in the
    given subnets, the URL on the published alias."""
    resources = deployed(template, overrides)
    managed_name = f"{function}Managed"
    check(function not in resources and managed_name in resources,
          f"{scenario}: the managed function, not the default one")
    managed = resources.get(managed_name, {}).get("Properties", {})
    plain = {key: value for key, value in overrides.items()
             if not key.startswith("CapacityProvider") and key != "MaxConcurrency"}
    default = deployed(template, plain)[function]["Properties"]
    same = {key: value for key, value in default.items() if key not in ("Description", "MemorySize")}
    check(all(managed.get(key) == value for key, value in same.items()),
          f"{scenario}: the same code, variables, role, logs and URL settings as the default function",
          str({key: managed.get(key) for key, value in same.items() if managed.get(key) != value}))
    memory = template["Parameters"]["ManagedMemorySize"]
    check(str(managed.get("MemorySize")) == str(memory["Default"])
          and int(memory["MinValue"]) >= 2048,
          f"{scenario}: 2 GB at least (Managed Instances' smallest function)")
    concurrency = overrides.get("MaxConcurrency")
    expected = {"Arn": {"Fn::GetAtt": ["CapacityProvider", "Arn"]}}
    if concurrency:
        expected["PerExecutionEnvironmentMaxConcurrency"] = concurrency
    check(managed.get("CapacityProviderConfig") == expected and managed.get("AutoPublishAlias") == "live",
          f"{scenario}: on the capacity provider" + (f", {concurrency} at once" if concurrency else "")
          + ", published as the alias live", str(managed.get("CapacityProviderConfig")))
    provider = resources.get("CapacityProvider", {})
    vpc = provider.get("Properties", {}).get("VpcConfig", {})
    groups = overrides.get("CapacityProviderSecurityGroupIds")
    check(provider.get("Type") == "AWS::Serverless::CapacityProvider"
          and vpc.get("SubnetIds") == overrides["CapacityProviderSubnetIds"]
          and vpc.get("SecurityGroupIds") == (groups if groups else [])
          and provider["Properties"].get("InstanceRequirements") == {"Architectures": ["arm64"]},
          f"{scenario}: a capacity provider in the given subnets, arm64 as the function", str(provider))
    check_url(scenario, deployed(cfn, overrides), overrides.get("Auth") == "API_KEY",
              function=managed_name, target=f"{managed_name}Aliaslive")
    check_role(scenario, resources, False, function=managed_name)
    outputs = {name: evaluate(output["Value"], {}, {"ManagedInstances": True})
               for name, output in template["Outputs"].items()}
    check(outputs["FunctionUrl"] == {"Fn::GetAtt": [f"{managed_name}Url", "FunctionUrl"]}
          and outputs["FunctionName"] == {"Ref": managed_name},
          f"{scenario}: outputs: the managed function and its URL")


def check_env():
    known = binary_variables()
    template = load_template()
    for scenario, overrides in SCENARIOS.items():
        resources = deployed(template, overrides)
        env = resources["A2aAgent"]["Properties"]["Environment"]["Variables"]
        check(set(env) <= known, f"{scenario}: the template sets only variables the binary reads",
              f"unknown: {sorted(set(env) - known)}")
        required = {
            "A2A_AGENT": overrides.get("Agent", "echo"),
            "A2A_STREAMING": "true",  # the URL streams (RESPONSE_STREAM)
            "A2A_TASK_TABLE": {"Ref": "TaskTable"},  # the table is the task store
            "A2A_AUTH": "api-key" if overrides.get("Auth") == "API_KEY" else "none",
            # The served bindings, as chosen (default both, as the binary's own default).
            "A2A_BINDINGS": overrides.get("Bindings", "jsonrpc,http+json"),
        }
        if overrides.get("Auth") == "API_KEY":
            required["A2A_API_KEY"] = overrides["ApiKey"]
        missing = {k: v for k, v in required.items() if env.get(k) != v}
        check(not missing, f"{scenario}: the template sets what its features need",
              f"wrong or missing: {missing} in {env}")
        check(("A2A_API_KEY" in env) == (overrides.get("Auth") == "API_KEY"),
              f"{scenario}: no API key unless Auth=API_KEY")

    # `cargo lambda deploy` takes its variables from the crate's Cargo.toml. RUST_LOG is
    # the log filter (tracing's EnvFilter in logging.rs), read outside Config.
    cargo = tomllib.loads((FUNCTION / "Cargo.toml").read_text())
    deploy_env = set(cargo["package"]["metadata"]["lambda"]["deploy"].get("env", {}))
    allowed = known | ({"RUST_LOG"} if "RUST_LOG" in rust_source("functions/lambda/src/logging.rs") else set())
    check(deploy_env <= allowed, "Cargo.toml's deploy env sets only variables the binary reads",
          f"unknown: {sorted(deploy_env - allowed)}")


def dockerfile_rules(dockerfile, what=""):
    """hadolint, and the rules every AgentCore image here follows: arm64 stages, a numeric
    non-root user, port 9000, few layers. Returns the instructions and the final stage's."""
    lint = subprocess.run([tool("hadolint"), "--no-color", "-t", "style", str(dockerfile)],
                          capture_output=True, text=True)
    check(lint.returncode == 0 and not lint.stdout.strip(), f"{what}hadolint: no finding",
          lint.stdout + lint.stderr)

    instructions, current = [], ""
    for raw in dockerfile.read_text().splitlines():
        line = raw.strip()
        if not current and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        keyword, _, rest = (current + line).partition(" ")
        instructions.append((keyword.upper(), rest.strip()))
        current = ""
    froms = [rest for keyword, rest in instructions if keyword == "FROM"]
    check(len(froms) >= 2 and all(f.startswith("--platform=linux/arm64 ") for f in froms),
          f"{what}multi-stage, every stage --platform=linux/arm64")
    final = instructions[max(i for i, (k, _) in enumerate(instructions) if k == "FROM"):]
    users = [rest for keyword, rest in final if keyword == "USER"]
    check(len(users) == 1 and re.fullmatch(r"[1-9]\d*(:[1-9]\d*)?", users[0]) is not None,
          f"{what}the final stage runs as a numeric, non-root USER", str(users))
    check(("EXPOSE", "9000") in instructions, f"{what}EXPOSE 9000")
    layers = sum(keyword in ("RUN", "COPY", "ADD") for keyword, _ in instructions)
    check(layers <= 6, f"{what}few layers ({layers} RUN/COPY/ADD, at most 6)")
    return instructions, final


def check_dockerfile():
    instructions, final = dockerfile_rules(DOCKERFILE)
    entrypoint = json.loads(dict(final).get("ENTRYPOINT", "[]"))
    args = " ".join(entrypoint[1:])
    serve_source = "".join(rust_source(f"server/src/serve/{name}.rs")
                           for name in ("mod", "config", "container", "running"))
    default_port = re.search(r"pub const AGENTCORE_PORT: u16 = (\d+);", serve_source)
    check(entrypoint == ["/usr/local/bin/a2a-container"] and not args
          and default_port is not None and default_port.group(1) == "9000"
          and "Ipv4Addr::UNSPECIFIED" in serve_source,
          "ENTRYPOINT: a2a-container (serve(agent): 0.0.0.0:9000 by default)", str(entrypoint))
    env = dict(instructions).get("ENV", "")
    check("A2A_LOG_FORMAT=json" in env, "JSON logs (ENV A2A_LOG_FORMAT=json)", env)
    check("AGENTCORE_RUNTIME_URL" not in env and '"AGENTCORE_RUNTIME_URL"' in serve_source,
          "AGENTCORE_RUNTIME_URL comes from the runtime and serve(agent) reads it")


def check_policy():
    policy = json.loads((ROOT / "infra" / "agentcore" / "caller-policy.json").read_text())
    statements_ = policy["Statement"]
    actions = {a for s in statements_ for a in s["Action"]}
    resources = [r for s in statements_ for r in s["Resource"]]
    check(policy["Version"] == "2012-10-17" and all(s["Effect"] == "Allow" for s in statements_),
          "caller policy: a 2012-10-17 Allow policy")
    check(actions == {"bedrock-agentcore:InvokeAgentRuntime", "bedrock-agentcore:GetAgentCard"},
          "caller policy: InvokeAgentRuntime and GetAgentCard only")
    check(bool(resources) and all(r.startswith("arn:aws:bedrock-agentcore:") and ":runtime/" in r
                                  for r in resources), "caller policy: on the runtime ARN only")


def check_bootstrap():
    if not check(BOOTSTRAP.exists(), f"{BOOTSTRAP.relative_to(ROOT)} exists",
                 "build it: `make package` (cargo lambda build --profile lambda-release)"):
        return
    header = BOOTSTRAP.read_bytes()[:20]
    machine = {62: "x86_64", 183: "arm64"}.get(int.from_bytes(header[18:20], "little"))
    check(header[:4] == b"\x7fELF" and machine is not None, f"bootstrap is a Linux {machine} executable")
    env = {k: v for k, v in os.environ.items() if k != "AWS_LAMBDA_RUNTIME_API"}
    if machine == {"x86_64": "x86_64", "aarch64": "arm64"}.get(os.uname().machine):
        run = subprocess.run([str(BOOTSTRAP)], env=env, capture_output=True, text=True, timeout=30)
        check(run.returncode == 1 and "not running inside AWS Lambda" in run.stdout
              and "panicked" not in run.stderr,
              "bootstrap starts, and outside Lambda says so and exits 1", run.stdout + run.stderr)


def dry_deploy(script, name, binary, cwd, what=""):
    """`script --dry`, which runs `cargo lambda deploy --dry` (packaging `binary` when given)
    in `cwd`: the function it would deploy and the URL it would make."""
    env = dict(os.environ, PATH=f"{TOOLS}{os.pathsep}{os.environ.get('PATH', '')}")
    tool("cargo-lambda")
    args = [str(script), "--dry", "-o", "json"]
    if binary is not None:
        args += ["--binary-path", str(binary)]
    run = subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=300)
    if not check(run.returncode == 0, f"{what}{script.name} --dry runs", run.stdout + run.stderr):
        return
    start = run.stdout.index("{")
    plan, end = json.JSONDecoder().raw_decode(run.stdout, start)
    lines = run.stdout[end:]
    config = plan["config"]
    check(plan["name"] == name and config["runtime"] == "provided.al2023",
          f"{what}cargo lambda deploy --dry: function {name} on provided.al2023")
    check(config["enable_function_url"] is False,
          f"{what}cargo lambda makes no Function URL (its own would be public and buffered)")
    variables = dict(v.split("=", 1) for v in config.get("env_var") or [])
    check(variables.get("A2A_STREAMING") == "true", f"{what}the cargo lambda deploy sets A2A_STREAMING=true")
    check("create-function-url-config" in lines and f"--function-name {name} " in lines
          and "--auth-type AWS_IAM" in lines and "--invoke-mode RESPONSE_STREAM" in lines,
          f"{what}then the URL of {name} is made RESPONSE_STREAM with AWS_IAM auth", lines)
    check(re.search(r"card url: +\S+/\.well-known/agent-card\.json", lines) is not None,
          f"{what}and the card URL is printed", lines)


def check_deploy():
    # The dry run needs a binary to package (it is not run): the cargo-lambda build when
    # there is one (`make package`), else the debug build `make infra-check` makes.
    binary = None if BOOTSTRAP.exists() else ROOT / "target" / "debug" / "a2a-agent"
    dry_deploy(ROOT / "infra" / "deploy-lambda.sh", "a2a-agent", binary, ROOT)


# --- infra/bedrock-chat: the examples/bedrock-chat agent -----------------------------------

BEDROCK_CHAT = ROOT / "examples" / "bedrock-chat"
BEDROCK_INFRA = ROOT / "infra" / "bedrock-chat"
# ConverseStream is authorized as InvokeModelWithResponseStream (Bedrock API Reference,
# ConverseStream), on the model's ARN (arn:aws:bedrock:REGION::foundation-model/ID).
MODEL_ACTION = "bedrock:InvokeModelWithResponseStream"
MODEL_ARN = {"Fn::Sub": "arn:${AWS::Partition}:bedrock:${AWS::Region}::foundation-model/${ModelId}"}


def bedrock_chat_variables():
    """The names the example reads (VARIABLES in examples/bedrock-chat/src/config.rs) and
    the Lambda host's (functions/lambda/src/config.rs)."""
    source = (BEDROCK_CHAT / "src" / "config.rs").read_text()
    body = re.search(r"pub const VARIABLES: &\[\(&str, &str\)\] = &\[(.*?)\n\];", source, re.S)
    if not body:
        sys.exit("VARIABLES not found in examples/bedrock-chat/src/config.rs")
    names = set(re.findall(r'\(\s*"([A-Z0-9_]+)"', body.group(1)))
    return names, binary_variables() - {"A2A_AGENT"}


def check_bedrock_chat():
    path = BEDROCK_INFRA / "template.yaml"
    lint(path, "of infra/bedrock-chat/template.yaml")
    from cfnlint.decode import cfn_yaml
    template = cfn_yaml.load(str(path))
    import boto3
    from samtranslator.parser.parser import Parser
    from samtranslator.translator.translator import Translator
    sam = json.loads(json.dumps(template))
    sam["Resources"]["BedrockChat"]["Properties"]["CodeUri"] = "s3://bucket/bedrock-chat.zip"
    translator = Translator(None, Parser(), boto_session=boto3.session.Session(region_name="us-east-1"))
    cfn = translator.translate(sam, parameter_values={}, get_managed_policy_map=dict)
    with tempfile.NamedTemporaryFile("w", suffix=".json") as transformed:
        json.dump(cfn, transformed)
        transformed.flush()
        lint(transformed.name, "of SAM's output for infra/bedrock-chat")

    chat_names, host_names = bedrock_chat_variables()
    check({"BEDROCK_MODEL_ID", "BEDROCK_SYSTEM_PROMPT", "BEDROCK_MAX_TOKENS", "BEDROCK_TEMPERATURE"}
          <= chat_names, "bedrock-chat: VARIABLES found in the example's config.rs", str(chat_names))
    store_actions, index, _ = store_facts()
    scenarios = {
        "defaults": {"ModelId": "amazon.nova-micro-v1:0"},
        "prompt and temperature": {"ModelId": "amazon.nova-micro-v1:0",
                                   "SystemPrompt": "Be brief.", "Temperature": "0.2"},
    }
    for scenario, overrides in scenarios.items():
        resources = deployed(template, overrides)
        fn = resources["BedrockChat"]["Properties"]
        env = fn["Environment"]["Variables"]
        known = chat_names | host_names
        check(set(env) <= known, f"bedrock-chat {scenario}: only variables the binary reads",
              f"unknown: {sorted(set(env) - known)}")
        required = {"BEDROCK_MODEL_ID": overrides["ModelId"], "A2A_STREAMING": "true",
                    "A2A_TASK_TABLE": {"Ref": "TaskTable"}}
        for name, parameter in (("BEDROCK_SYSTEM_PROMPT", "SystemPrompt"),
                                ("BEDROCK_TEMPERATURE", "Temperature")):
            if overrides.get(parameter):
                required[name] = overrides[parameter]
        missing = {k: v for k, v in required.items() if env.get(k) != v}
        check(not missing, f"bedrock-chat {scenario}: the model, streaming and the task table",
              f"wrong or missing: {missing} in {env}")
        check(("BEDROCK_TEMPERATURE" in env) == bool(overrides.get("Temperature")),
              f"bedrock-chat {scenario}: no temperature unless given (the model's default)")

        actions, model_statements = set(), []
        for statement, allowed in statements(resources["FunctionRole"]):
            check(statement["Effect"] == "Allow" and "*" not in allowed,
                  f"bedrock-chat {scenario}: {statement.get('Sid')}: no wildcard action")
            actions |= allowed
            if any(a.startswith("bedrock:") for a in allowed):
                model_statements.append((allowed, statement["Resource"]))
            if any(a.startswith("dynamodb:") for a in allowed):
                on_index = statement["Resource"] == {"Fn::Sub": f"${{TaskTable.Arn}}/index/{index}"}
                on_table = statement["Resource"] == {"Fn::GetAtt": ["TaskTable", "Arn"]}
                check(on_index or on_table, f"bedrock-chat {scenario}: DynamoDB on the table or its index only")
        check(model_statements == [({MODEL_ACTION}, MODEL_ARN)],
              f"bedrock-chat {scenario}: {MODEL_ACTION} on the configured model only", str(model_statements))
        expected = {"logs:CreateLogStream", "logs:PutLogEvents", MODEL_ACTION} | store_actions
        check(actions == expected, f"bedrock-chat {scenario}: the role's actions are exactly {sorted(expected)}",
              f"extra {sorted(actions - expected)}, missing {sorted(expected - actions)}")
        check(fn.get("Role") == {"Fn::GetAtt": ["FunctionRole", "Arn"]} and "Policies" not in fn,
              f"bedrock-chat {scenario}: the function has this role and no other policy")

    fn = template["Resources"]["BedrockChat"]
    props = fn["Properties"]
    package = tomllib.loads((BEDROCK_CHAT / "Cargo.toml").read_text())
    check(fn["Metadata"] == {"BuildMethod": "rust-cargolambda",
                             "BuildProperties": {"Binary": package["package"]["name"]}}
          and (path.parent / props["CodeUri"]).resolve() == BEDROCK_CHAT.resolve(),
          "bedrock-chat: built by rust-cargolambda from the example crate, as its binary")
    check(props["Runtime"] == "provided.al2023" and props["Architectures"] == ["arm64"]
          and props["Handler"] == "bootstrap", "bedrock-chat: provided.al2023, arm64, bootstrap")
    made = deployed(cfn, {"ModelId": "amazon.nova-micro-v1:0"})
    urls = [r["Properties"] for r in made.values() if r["Type"] == "AWS::Lambda::Url"]
    check([(u.get("AuthType"), u.get("InvokeMode")) for u in urls] == [("AWS_IAM", "RESPONSE_STREAM")],
          "bedrock-chat: one Function URL, SigV4 (AWS_IAM), RESPONSE_STREAM", str(urls))
    check(not any(r["Type"] == "AWS::Lambda::Permission" for r in made.values()),
          "bedrock-chat: no grant to anyone")
    deploy_env = set(package["package"]["metadata"]["lambda"]["deploy"].get("env", {}))
    check(deploy_env <= chat_names | host_names | {"RUST_LOG"},
          "bedrock-chat: Cargo.toml's deploy env sets only variables the binary reads")

    dockerfile = BEDROCK_INFRA / "Dockerfile"
    run = subprocess.run([tool("hadolint"), "--no-color", "-t", "style", str(dockerfile)],
                         capture_output=True, text=True)
    check(run.returncode == 0 and not run.stdout.strip(), "bedrock-chat: hadolint: no finding",
          run.stdout + run.stderr)
    text = dockerfile.read_text()
    froms = re.findall(r"^FROM (.*)$", text, re.M)
    check(len(froms) >= 2 and all(f.startswith("--platform=linux/arm64 ") for f in froms),
          "bedrock-chat: multi-stage, every stage --platform=linux/arm64")
    final = text[text.rindex("\nFROM "):]
    check(re.search(r"^USER [1-9]\d*:[1-9]\d*$", final, re.M) is not None
          and "\nEXPOSE 9000\n" in final and "A2A_LOG_FORMAT=json" in final,
          "bedrock-chat: the final stage runs as a numeric non-root user, exposes 9000, JSON logs")
    check('ENTRYPOINT ["/usr/local/bin/bedrock-chat"]' in final
          and "--manifest-path examples/bedrock-chat/Cargo.toml" in text and "--locked" in text,
          "bedrock-chat: the image runs the example's binary, built --locked from its manifest")

    policy = json.loads((BEDROCK_INFRA / "agentcore-role-policy.json").read_text())
    allowed = [(s["Effect"], s["Action"], s["Resource"]) for s in policy["Statement"]]
    check(policy["Version"] == "2012-10-17" and len(allowed) == 1
          and allowed[0][:2] == ("Allow", [MODEL_ACTION])
          and all(re.fullmatch(r"arn:aws:bedrock:[a-z0-9-]+::foundation-model/[a-z0-9.:-]+", r)
                  for r in allowed[0][2]),
          f"bedrock-chat: the AgentCore role policy allows {MODEL_ACTION} on one model only", str(allowed))


# --- a crate `a2a new` wrote (cli/templates/) ---------------------------------------------

SCAFFOLD = {"crate": None, "binary": None}


def check_scaffold():
    """The deploy files of a crate `a2a new` wrote: its SAM template (cfn-lint, SAM's output,
    the URL, the role, the table, the variables against the Lambda host's), its Cargo.toml
    deploy settings and profiles, its deploy-lambda.sh (infra/deploy-lambda.sh for its
    function, and its dry run), its Dockerfile and its request header allowlist."""
    if SCAFFOLD["crate"] is None:
        sys.exit("the scaffold section needs --crate DIR (a crate `a2a new` wrote)")
    crate = Path(SCAFFOLD["crate"]).resolve()
    package = tomllib.loads((crate / "Cargo.toml").read_text())
    name = package["package"]["name"]
    what = f"{name}: "

    path = crate / "template.yaml"
    lint(path, f"of {name}/template.yaml")
    from cfnlint.decode import cfn_yaml
    template = cfn_yaml.load(str(path))
    cfn = sam_transform(template, "Agent")  # its managed twin, AgentManaged, too
    with tempfile.NamedTemporaryFile("w", suffix=".json") as transformed:
        json.dump(cfn, transformed)
        transformed.flush()
        lint(transformed.name, f"of SAM's output for {name}/template.yaml")
    fn = template["Resources"]["Agent"]
    props = fn["Properties"]
    check(fn["Metadata"] == {"BuildMethod": "rust-cargolambda", "BuildProperties": {"Binary": name}}
          and props["CodeUri"] == ".",
          f"{what}built by rust-cargolambda from the crate's folder, as its binary")
    check(props["Runtime"] == "provided.al2023" and props["Architectures"] == ["arm64"]
          and props["Handler"] == "bootstrap", f"{what}provided.al2023, arm64, bootstrap")
    check(evaluate(template["Outputs"]["CardUrl"]["Value"], {}, {"ManagedInstances": False})
          == {"Fn::Sub": "${AgentUrl.FunctionUrl}.well-known/agent-card.json"},
          f"{what}outputs the card URL")
    check_url(name, deployed(cfn, {}), False, function="Agent")
    for scenario, overrides in MANAGED_SCENARIOS.items():
        if "Auth" not in overrides:  # its URL is always AWS_IAM
            check_managed(template, cfn, f"{what}{scenario}", overrides, function="Agent")
    resources = deployed(template, {})
    check_role(name, resources, False, function="Agent")
    check_table(template)
    host = binary_variables() - {"A2A_AGENT"}
    env = resources["Agent"]["Properties"]["Environment"]["Variables"]
    check(set(env) <= host, f"{what}the template sets only variables the Lambda host reads",
          f"unknown: {sorted(set(env) - host)}")
    check(env.get("A2A_STREAMING") == "true" and env.get("A2A_TASK_TABLE") == {"Ref": "TaskTable"},
          f"{what}A2A_STREAMING=true (the URL streams) and A2A_TASK_TABLE (the table)", str(env))

    deploy = package["package"]["metadata"]["lambda"]["deploy"]
    deploy_env = deploy.get("env", {})
    check(deploy_env.get("A2A_STREAMING") == "true" and set(deploy_env) <= host | {"RUST_LOG"},
          f"{what}Cargo.toml's deploy env: A2A_STREAMING=true, and only variables the host reads",
          str(deploy_env))
    check(deploy.get("timeout") == 900 and deploy.get("memory", 0) >= 128,
          f"{what}Cargo.toml's deploy settings: 900 s (the longest stream), memory", str(deploy))
    profiles = package.get("profile", {})
    check(profiles.get("release", {}).get("panic") == "unwind",
          f"{what}release builds unwind (a panic is a -32603 answer, not a dead instance)")
    small = profiles.get("lambda-release", {})
    check(small.get("inherits") == "release" and small.get("opt-level") == "z"
          and small.get("codegen-units") == 1 and small.get("strip") is True,
          f"{what}the lambda-release profile: release, small", str(small))

    script = crate / "deploy-lambda.sh"
    general = (ROOT / "infra" / "deploy-lambda.sh").read_text()
    check(script.read_text() == general.replace("FUNCTION=a2a-agent\n", f"FUNCTION={name}\n", 1)
          and os.access(script, os.X_OK),
          f"{what}deploy-lambda.sh is infra/deploy-lambda.sh for {name}, executable")
    dry_deploy(script, name, SCAFFOLD["binary"], crate, what)

    instructions, final = dockerfile_rules(crate / "Dockerfile", what)
    entrypoint = json.loads(dict(final).get("ENTRYPOINT", "[]"))
    build = " ".join(rest for keyword, rest in instructions if keyword == "RUN")
    check(entrypoint == [f"/usr/local/bin/{name}"] and f"--bin {name}" in build and "--locked" in build,
          f"{what}the image runs the crate's binary, built --locked", str(entrypoint))
    check("A2A_LOG_FORMAT=json" in dict(final).get("ENV", ""), f"{what}JSON logs (A2A_LOG_FORMAT=json)")
    ours = re.findall(r"^FROM (.*)$", DOCKERFILE.read_text(), re.M)
    check([rest for keyword, rest in instructions if keyword == "FROM"] == ours,
          f"{what}the same build and runtime images as infra/agentcore/Dockerfile", str(ours))
    ignored = (crate / ".dockerignore").read_text().split()
    check("target/" in ignored, f"{what}the build context leaves target/ out")
    headers = json.loads((crate / "request-headers.json").read_text())
    deployed_ones = json.loads((ROOT / "infra" / "agentcore" / "request-headers.json").read_text())
    check(headers == deployed_ones, f"{what}request-headers.json is infra/agentcore's allowlist",
          str(headers))


SECTIONS = {
    "template": check_template,
    "env": check_env,
    "dockerfile": check_dockerfile,
    "policy": check_policy,
    "bootstrap": check_bootstrap,
    "deploy": check_deploy,
    "bedrock-chat": check_bedrock_chat,
    "scaffold": check_scaffold,
}

if __name__ == "__main__":
    args = sys.argv[1:]
    for flag in ("--crate", "--binary"):
        if flag in args:
            at = args.index(flag)
            if at + 1 == len(args):
                sys.exit(f"{flag} needs a path")
            SCAFFOLD[flag[2:]] = args[at + 1]
            del args[at:at + 2]
    chosen = args or [name for name in SECTIONS if name != "scaffold" or SCAFFOLD["crate"]]
    for name in chosen:
        if name not in SECTIONS:
            sys.exit(f"unknown section {name}: one of {', '.join(SECTIONS)}")
        print(f"== {name}")
        SECTIONS[name]()
    print(f"infra: {results['passed']} passed, {results['failed']} failed")
    sys.exit(1 if results["failed"] else 0)
