#!/usr/bin/env bash
# `make run`: Mafia Arena on this machine.
#  - No REDIS_URL: one process (mafia-arena) on the embedded event log.
#  - REDIS_URL set: the referee, the gateway and the demo tables as separate
#    processes sharing that Redis, as they run in production.
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
token() { od -An -N16 -tx1 /dev/urandom | tr -d ' \n'; }
# One token file for every service (docs/config.md), made once and kept
# (the same file mafia-arena makes), so the printed URLs survive restarts.
tokens_file=${MAFIA_TOKENS_FILE:-data/tokens.json}
if [ ! -f "$tokens_file" ]; then
  mkdir -p "$(dirname "$tokens_file")"
  (umask 077; printf '{"tokens": [\n  {"role":"chief_judge","token":"%s"},\n  {"role":"broadcast","token":"%s"},\n  {"role":"table_judge","token":"%s","games":["*.*.*.t1.*"]},\n  {"role":"organiser","token":"%s"}\n]}\n' \
    "$(token)" "$(token)" "$(token)" "$(token)" >"$tokens_file")
fi
# The first token of a role: one entry a line, "role" before "token".
tok() { sed -n "s/.*\"role\": *\"$1\", *\"token\": *\"\([^\"]*\)\".*/\1/p" "$tokens_file" | head -n 1; }
chief=$(tok chief_judge); broadcast=$(tok broadcast); judge=$(tok table_judge)
export MAFIA_TOKENS_FILE=$tokens_file
seed=$(date +%s)
grpc=${MAFIA_REFEREE_LISTEN:-127.0.0.1:50051}
http=${MAFIA_GATEWAY_LISTEN:-127.0.0.1:8080}
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

# The services log to files, so the terminal keeps the URLs and tokens.
logs=${MAFIA_LOG_DIR:-data/logs}
mkdir -p "$logs"
"$bin/mafia-referee" --store redis --redis-url "$REDIS_URL" --listen "$grpc" \
  >"$logs/referee.log" 2>&1 &
pids+=($!)
"$bin/mafia-gateway" --redis-url "$REDIS_URL" >"$logs/gateway.log" 2>&1 &
pids+=($!)
sleep 1
echo
echo "  tokens (from $tokens_file):"
echo "    chief judge:    $chief"
echo "    broadcast:      $broadcast"
echo "    table judge:    $judge  (table 1)"
echo "  logs:             $logs/referee.log, $logs/gateway.log"
echo "  hall screen:      http://$http/hall"
echo "  spectator:        http://$http/spectator"
echo "  OBS overlay:      http://$http/overlay?table=1&token=$broadcast  (table 1, whatever game is current)"
echo "  chief judge:      http://$http/judge?token=$chief"
echo
"$bin/mafia" sim --referee "http://$grpc" --token "$chief" --tables "$tables" \
  --speed "$speed" --seed "$seed" --games 1000 >/dev/null &
pids+=($!)
wait
