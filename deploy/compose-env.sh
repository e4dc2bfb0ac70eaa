#!/usr/bin/env bash
# Prepares `docker compose -f deploy/compose.yaml up`: the token file (made
# once, as `make run` makes it, and kept), a copy the containers' user
# (uid 10001) may read, and deploy/.env with the two tokens compose passes
# on: the organiser's (the scoring service opens rounds on the referees
# with it) and the chief judge's (the demo driver).
set -euo pipefail
cd "$(dirname "$0")/.."
. deploy/tokens.sh
tokens_file=${MAFIA_TOKENS_FILE:-data/tokens.json}
make_tokens "$tokens_file"
# The directory keeps the copy private on the host; inside a container only
# the file is mounted, readable by the services' user.
install -d -m 0700 deploy/secrets
install -m 0644 "$tokens_file" deploy/secrets/tokens.json
umask 077
cat >deploy/.env <<ENV
COMPOSE_PROJECT_NAME=mafia-arena
MAFIA_ORGANISER_TOKEN=$(tok organiser "$tokens_file")
MAFIA_CHIEF_TOKEN=$(tok chief_judge "$tokens_file")
ENV
echo "tokens: $tokens_file (copy in deploy/secrets/tokens.json); deploy/.env written"
