#!/usr/bin/env bash
# Runs the Autobahn WebSocket fuzzing client (autobahntestsuite 0.8.2,
# `wstest -m fuzzingclient`) against the gateway's WebSocket transport and
# prints its summary (docs/autobahn.md holds the last one).
#
# NOT run by CI: it takes minutes and installs a Python environment from
# PyPI. Run it by hand after changing services/gateway/src/ws/:
#
#     tests/autobahn/run.sh            # cases 1.* to 10.* (spec.json)
#     CASES='["6.4.*"]' tests/autobahn/run.sh   # some cases only
#
# What it does:
#  1. makes a venv ($AUTOBAHN_VENV, default /tmp/autobahn-venv) with the
#     pinned libraries of requirements.txt, all from PyPI;
#  2. ports the suite, which is Python 2 code (PyPI has no Python 3 release
#     and Debian no python2), to Python 3: 2to3 (lib2to3), the byte-string
#     literals of its cases made bytes (bytes_literals.py), a few hand
#     patches below, and the run-time shims of wstest3.py;
#  3. builds the gateway and starts it on 127.0.0.1:0 with --autobahn-echo,
#     which routes /ws/autobahn-echo: an echo endpoint on the very transport
#     of the raw feed and GraphQL (ws/upgrade.rs, frame.rs, conn.rs). The
#     cases expect every message echoed, which no feed does;
#  4. runs the cases and prints counts per group and every case not OK
#     (summary.py); the HTML report is in $OUTDIR (default
#     target/autobahn). Exit status 1 when a case FAILED.
#
# Needs python3 (3.11 tested) with venv, cargo, and network access to PyPI
# for the first run.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${AUTOBAHN_VENV:-/tmp/autobahn-venv}"
outdir="${OUTDIR:-$root/target/autobahn}"
python="${PYTHON:-python3}"

if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt" --no-deps

port="$venv/port"
site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
if [ ! -f "$port/.ported" ]; then
  rm -rf "$port"
  mkdir -p "$port"
  cp -r "$site/autobahntestsuite" "$port/"
  suite="$port/autobahntestsuite"
  find "$suite" -name '*.py' -exec sed -i 's/\r$//' {} +
  "$venv/bin/python" -W ignore -m lib2to3 --write --nobackups "$suite" >/dev/null 2>&1
  "$venv/bin/python" "$here/bytes_literals.py" "$suite"/case/*.py
  # Indexing bytes gives an int in Python 3: a one-byte slice instead.
  sed -i 's/PAYLOAD\[12\]/PAYLOAD[12:13]/g' "$suite/case/case6_4_2.py" "$suite/case/case6_4_4.py"
  # Byte sequences built from chr() and '' in Python 2.
  sed -i -e "s/''.join(k)/b''.join(k)/" -e 's/^\( *\)s = ""$/\1s = b""/' \
    -e "s/^\( *\)s = ''$/\1s = b''/" -e 's/s += chr(i)/s += bytes([i])/' \
    -e "s/s += chr(0x20)/s += b' '/" "$suite/case/case6_x_x.py"
  # Python 2's integer division.
  sed -i 's|len(self.payload) / self.p.autoFragmentSize|len(self.payload) // self.p.autoFragmentSize|' \
    "$suite/case/case10_1_1.py"
  # type(name, (object, Case), …) has no consistent MRO in Python 3.
  sed -i 's/(object, *Case\([A-Za-z0-9_]*\), *)/(Case\1,)/' "$suite"/case/*.py
  # zope.interface's class advice `implements` is gone: the decorator.
  sed -i -e 's/from zope.interface import implements$/from zope.interface import implementer/' \
    -e 's/^   implements(interfaces.IPushProducer)$//' \
    -e 's/^class FrameProducer:/@implementer(interfaces.IPushProducer)\nclass FrameProducer:/' \
    "$suite/case/case9_9_1.py"
  # The WAMP serializer mode needs unittest2 (Python 2 only); unused here.
  sed -i 's/^from \. import serializer$/# serializer (WAMP): not ported/' "$suite/wstest.py"
  # autobahn 0.10.9's own Python 3 bug: a repeated payload's count.
  sed -i 's|range(payload_len / len(payload))|range(payload_len // len(payload))|' \
    "$site/autobahn/websocket/protocol.py"
  touch "$port/.ported"
fi

cd "$root"
CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}" cargo build --quiet -p mafia-gateway --bin mafia-gateway
work="$(mktemp -d "${TMPDIR:-/tmp}/autobahn-run.XXXXXX")"
gateway_pid=""
cleanup() {
  if [ -n "$gateway_pid" ]; then
    kill "$gateway_pid" 2>/dev/null || true
    wait "$gateway_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
"$root/target/debug/mafia-gateway" --autobahn-echo --listen 127.0.0.1:0 --metrics-listen "" \
  --data "$work/events.redb" >"$work/gateway.out" 2>"$work/gateway.err" &
gateway_pid=$!
addr=""
for _ in $(seq 1 600); do
  addr="$(sed -n 's|^hall screen: *http://\([^/]*\)/hall$|\1|p' "$work/gateway.out")"
  [ -n "$addr" ] && break
  kill -0 "$gateway_pid" 2>/dev/null || { cat "$work/gateway.err" >&2; exit 1; }
  sleep 0.1
done
[ -n "$addr" ] || { echo "the gateway never printed its address" >&2; exit 1; }

mkdir -p "$outdir"
sed -e "s|@OUTDIR@|$outdir|" -e "s|@ADDR@|$addr|" "$here/spec.json" >"$work/spec.json"
if [ -n "${CASES:-}" ]; then
  "$venv/bin/python" - "$work/spec.json" "$CASES" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
spec["cases"] = json.loads(sys.argv[2])
json.dump(spec, open(sys.argv[1], "w"))
PY
fi
echo "gateway at $addr; report in $outdir"
(cd "$work" && PYTHONPATH="$port" "$venv/bin/python" "$here/wstest3.py" \
  -m fuzzingclient -s "$work/spec.json" >"$work/wstest.log" 2>&1) || {
  tail -40 "$work/wstest.log" >&2
  exit 1
}
if grep -q "Unhandled Error" "$work/wstest.log"; then
  echo "the ported suite raised errors (a Python 2 habit left?):" >&2
  grep -A2 -B12 "^builtins\." "$work/wstest.log" | head -60 >&2
fi
"$venv/bin/python" "$here/summary.py" "$outdir/index.json"
