#!/usr/bin/env bash
# Deploys the built a2a-agent with `cargo lambda deploy`, then gives it the Function URL the
# README promises: RESPONSE_STREAM (answers stream as SSE) and AWS_IAM auth (SigV4).
#
# `cargo lambda deploy --enable-function-url` is not used: it makes a public, buffered URL.
#
#   infra/deploy-lambda.sh [--dry] [more cargo lambda deploy flags]
#
# Build first (`make deploy` does: cargo lambda build --profile lambda-release --arm64 -p a2a-agent).
# Region and credentials come from the usual AWS_REGION / AWS_PROFILE, read by both tools.
# --dry: cargo lambda packages without deploying, and the aws commands are only printed.
set -euo pipefail
cd "$(dirname "$0")/.."

FUNCTION=a2a-agent
dry=()
if [ "${1:-}" = "--dry" ]; then
  dry=(--dry)
  shift
fi

# (The `+` form keeps an empty array working under `set -u` in the bash 3 of macOS.)
cargo lambda deploy ${dry[@]+"${dry[@]}"} "$@" "$FUNCTION"

url_flags=(--function-name "$FUNCTION" --auth-type AWS_IAM --invoke-mode RESPONSE_STREAM
  --query FunctionUrl --output text)
if [ ${#dry[@]} -gt 0 ]; then
  echo "would run: aws lambda create-function-url-config ${url_flags[*]} (update-… if it exists)"
  url='https://<url-id>.lambda-url.<region>.on.aws/'
elif aws lambda get-function-url-config --function-name "$FUNCTION" >/dev/null 2>&1; then
  url=$(aws lambda update-function-url-config "${url_flags[@]}")
else
  url=$(aws lambda create-function-url-config "${url_flags[@]}")
fi
echo "function url: $url (invoke mode RESPONSE_STREAM, auth AWS_IAM)"
echo "card url:     ${url}.well-known/agent-card.json"
