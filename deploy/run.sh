#!/usr/bin/env bash
# `make run`: Mafia Arena on this machine.
#  - No REDIS_URL: one process (mafia-arena) on the embedded event log.
#  - REDIS_URL set: the referee, the gateway, the scoring service and the
#    demo tournament as separate processes sharing that Redis, as they run
#    in production.
# Ctrl-C stops everything cleanly.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${CARGO_TARGET_DIR:-target}/release
tables=${MAFIA_DEMO_TABLES:-8}
speed=${MAFIA_DEMO_SPEED:-10}

if [ -z "${REDIS_URL:-}" ]; then
  exec "$bin/mafia-arena" --tables "$tables" --speed "$speed"
fi

# Job control: background children keep SIGINT (a non-interactive shell
# would ignore it for them), so Ctrl-C can be forwarded for a clean stop.
set -m
# One token file for every service (docs/config.md), made once and kept
# (the same file mafia-arena makes), so the printed URLs survive restarts.
. deploy/tokens.sh
tokens_file=${MAFIA_TOKENS_FILE:-data/tokens.json}
make_tokens "$tokens_file"
chief=$(tok chief_judge "$tokens_file"); broadcast=$(tok broadcast "$tokens_file")
judge=$(tok table_judge "$tokens_file"); organiser=$(tok organiser "$tokens_file")
export MAFIA_TOKENS_FILE=$tokens_file
seed=$(date +%s)
tournament="demo-$seed"
grpc=${MAFIA_REFEREE_LISTEN:-127.0.0.1:50051}
http=${MAFIA_GATEWAY_LISTEN:-127.0.0.1:8080}
scoring=${MAFIA_SCORING_LISTEN:-127.0.0.1:50053}
export MAFIA_GATEWAY_LISTEN=$http
pids=()
stop() {
  echo "stopping…" >&2
  set +m
  for p in "${pids[@]}"; do kill -INT "$p" 2>/dev/null || true; done
  wait || true
  # A clean stop is a success: make must not report "Error 130".
  exit 0
}
trap stop INT TERM

# Waits until something listens on host:port (the services bind at once;
# this only covers their start-up).
listening() {
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/${1%:*}/${1##*:}") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "nothing listens on $1: see $logs" >&2
  return 1
}

# The services log to files, so the terminal keeps the URLs and tokens.
logs=${MAFIA_LOG_DIR:-data/logs}
mkdir -p "$logs"
# The judge console (served by the gateway) calls the referee over gRPC-web.
"$bin/mafia-referee" --store redis --redis-url "$REDIS_URL" --listen "$grpc" \
  --web-origins "http://$http" >"$logs/referee.log" 2>&1 &
pids+=($!)
"$bin/mafia-gateway" --redis-url "$REDIS_URL" --console-referee-url "http://$grpc" \
  --console-scoring-url "http://$scoring" >"$logs/gateway.log" 2>&1 &
pids+=($!)
# ... and sends post-game inputs to the scoring service over gRPC-web.
# Tokens go in the environment, never on a command line (`ps` shows those
# to every user of the machine).
MAFIA_SCORING_REFEREE_TOKEN="$organiser" \
  "$bin/mafia-scoring" --redis-url "$REDIS_URL" --listen "$scoring" \
  --referee-url "http://$grpc" \
  --web-origins "http://$http" >"$logs/scoring.log" 2>&1 &
pids+=($!)
listening "$grpc" && listening "$http" && listening "$scoring" || stop
echo
echo "  tokens (from $tokens_file):"
echo "    chief judge:    $chief"
echo "    broadcast:      $broadcast"
echo "    table judge:    $judge  (table 1)"
echo "    organiser:      $organiser"
echo "  logs:             $logs/referee.log, $logs/gateway.log, $logs/scoring.log"
echo "  hall screen:      http://$http/hall"
echo "  spectator:        http://$http/spectator"
echo "  OBS overlay:      http://$http/overlay?table=1&token=$broadcast  (table 1, whatever game is current)"
echo "  chief judge:      http://$http/judge?token=$chief&tournament=$tournament"
echo "  judge console:    http://$http/judge-console  (a table judge's or the chief judge's token)"
echo "  standings:        http://$http/standings?tournament=$tournament"
echo "  GraphQL:          http://$http/graphql"
echo "  referee (gRPC):   http://$grpc"
echo "  scoring (gRPC):   http://$scoring  (tournament $tournament)"
echo
# The demo tournament, driven through the scoring service and the referee
# as an organiser and table judges would.
MAFIA_ORGANISER_TOKEN="$organiser" MAFIA_CHIEF_TOKEN="$chief" \
  "$bin/mafia-arena" --drive --scoring-url "http://$scoring" --referee-url "http://$grpc" \
  --tournament "$tournament" --tables "$tables" --speed "$speed" &
pids+=($!)
wait
