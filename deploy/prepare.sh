#!/usr/bin/env bash
# Prepares a deployment from the one token file (docs/config.md): makes it
# once with fresh tokens, as `make run` does, and keeps it; then writes what
# compose and kustomize read, none of it committed:
#  - deploy/secrets/tokens.json: a copy the containers' user (uid 10001) may
#    read (the directory keeps it private on the host; a container sees
#    only the file);
#  - deploy/.env: the compose project's name and the two tokens compose hands
#    on: the organiser's (the scoring service opens rounds on the referees
#    with it) and the chief judge's (the demo driver);
#  - deploy/k8s/base/tokens.json and scoring.env: the Secrets' sources.
# Run it again after editing the token file (token rotation, deploy/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. deploy/tokens.sh
tokens_file=${MAFIA_TOKENS_FILE:-data/tokens.json}
make_tokens "$tokens_file"
organiser=$(tok organiser "$tokens_file")
chief=$(tok chief_judge "$tokens_file")
install -d -m 0700 deploy/secrets
install -m 0644 "$tokens_file" deploy/secrets/tokens.json
umask 077
cat >deploy/.env <<ENV
COMPOSE_PROJECT_NAME=mafia-arena
MAFIA_ORGANISER_TOKEN=$organiser
MAFIA_CHIEF_TOKEN=$chief
ENV
cp "$tokens_file" deploy/k8s/base/tokens.json
printf 'MAFIA_SCORING_REFEREE_TOKEN=%s\n' "$organiser" >deploy/k8s/base/scoring.env
echo "token file: $tokens_file; wrote deploy/secrets/tokens.json, deploy/.env, deploy/k8s/base/{tokens.json,scoring.env}"
