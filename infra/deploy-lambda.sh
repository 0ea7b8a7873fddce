#!/usr/bin/env bash
# Deploys a function built by `cargo lambda build` with `cargo lambda deploy`, then gives it
# the Function URL an A2A agent needs: RESPONSE_STREAM (answers stream as server-sent
# events) and AWS_IAM auth (callers sign with SigV4). Prints the URL and the card's URL.
#
#   deploy-lambda.sh [--dry] [--function NAME] [more cargo lambda deploy flags]
#
# Run it from the folder of the crate (or workspace) that builds the function, after
# `cargo lambda build --profile lambda-release --arm64`. NAME is the binary's name and the
# function's (default below). The function's memory, timeout and variables come from the
# crate's [package.metadata.lambda.deploy]: A2A_STREAMING=true there makes the agent stream.
# `cargo lambda deploy --enable-function-url` is not used: it makes a public, buffered URL.
# Region and credentials come from the usual AWS_REGION / AWS_PROFILE, read by both tools.
# --dry: cargo lambda packages without deploying, and the aws commands are only printed.
set -euo pipefail

FUNCTION=a2a-agent
dry=()
while [ $# -gt 0 ]; do
  case "$1" in
    --dry) dry=(--dry); shift ;;
    --function) FUNCTION=${2:?--function needs the function name}; shift 2 ;;
    *) break ;;
  esac
done

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
