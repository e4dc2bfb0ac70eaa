"""Runs autobahntestsuite 0.8.2's `wstest`, mechanically ported to
Python 3 by port.sh, with the run-time patches its Python 2 habits need:
payloads written as `str` are sent as the bytes Python 2 would have sent,
the received bytes are compared with them as bytes, and the logs and
reports turn bytes into text. Nothing here changes what a case sends or
expects.
"""
import binascii
import builtins
import json
import sys

from autobahn.websocket import protocol as ws_protocol


def as_bytes(data):
    """What Python 2 sent for `data`: a str literal was its bytes (the
    non-ASCII literals are already bytes, see bytes_literals.py; what is
    left is ASCII or chr() of bytes, so Latin-1 gives the same bytes)."""
    if isinstance(data, str):
        try:
            return data.encode("latin-1")
        except UnicodeEncodeError:
            return data.encode("utf-8")
    return data


# The suite's cases send `str` payloads: encode them where they leave.
P = ws_protocol.WebSocketProtocol
_send_frame = P.sendFrame


def send_frame(self, opcode, payload=b"", *args, **kwargs):
    return _send_frame(self, opcode, as_bytes(payload), *args, **kwargs)


P.sendFrame = send_frame
for name in ("sendMessage", "sendPing", "sendPong", "sendMessageFrameData"):
    original = getattr(P, name)

    def patched(self, payload=b"", *args, _original=original, **kwargs):
        return _original(self, as_bytes(payload), *args, **kwargs)

    setattr(P, name, patched)

_send_close_frame = P.sendCloseFrame


def send_close_frame(self, code=None, reasonUtf8=None, isReply=False):
    if reasonUtf8 is not None:
        reasonUtf8 = as_bytes(reasonUtf8)
    return _send_close_frame(self, code, reasonUtf8, isReply)


P.sendCloseFrame = send_close_frame

from autobahntestsuite import fuzzing  # noqa: E402
from autobahntestsuite.case import case as case_module  # noqa: E402


def normalised(events):
    out = []
    for e in events:
        if e[0] in ("message", "ping", "pong"):
            e = (e[0], as_bytes(e[1])) + tuple(e[2:])
        out.append(e)
    return out


case_module.Case.compare = lambda self, a, b: normalised(a) == normalised(b)


def bin_log_data(data, maxlen=64):
    data = as_bytes(data)
    ellipses = " ..."
    if len(data) > maxlen - len(ellipses):
        return binascii.b2a_hex(data[:maxlen]).decode("ascii") + ellipses
    return binascii.b2a_hex(data).decode("ascii")


def ascii_log_data(data, maxlen=64, replace=False):
    data = as_bytes(data)
    ellipses = b" ..."
    try:
        dd = data[:maxlen] + ellipses if len(data) > maxlen - len(ellipses) else data
        return dd.decode("utf8", errors="replace" if replace else "strict")
    except UnicodeDecodeError:
        return "0x" + bin_log_data(data, maxlen)


fuzzing.binLogData = bin_log_data
fuzzing.asciiLogData = ascii_log_data

_log_rx_frame = fuzzing.FuzzingProtocol.logRxFrame


def log_rx_frame(self, frameHeader, payload):
    return _log_rx_frame(self, frameHeader, [b"".join(as_bytes(p) for p in payload).decode("latin-1")])


fuzzing.FuzzingProtocol.logRxFrame = log_rx_frame


def jsonable(o):
    if isinstance(o, (bytes, bytearray)):
        return o.decode("latin-1")
    return str(o)


class JsonWithBytes:
    """fuzzing.json: bytes in a report are written as text."""

    loads = staticmethod(json.loads)
    load = staticmethod(json.load)

    @staticmethod
    def dumps(o, **kw):
        kw.setdefault("default", jsonable)
        return json.dumps(o, **kw)


fuzzing.json = JsonWithBytes


class Report:
    """A report file that takes the bytes the suite encodes for Python 2."""

    def __init__(self, path, mode):
        self.f = builtins.open(path, mode, encoding="utf-8")

    def write(self, s):
        if isinstance(s, (bytes, bytearray)):
            s = s.decode("utf-8", errors="replace")
        return self.f.write(s)

    def close(self):
        self.f.close()

    def __getattr__(self, name):
        return getattr(self.f, name)


def report_open(path, mode="r", *args, **kwargs):
    if "w" in mode and "b" not in mode:
        return Report(path, mode)
    return builtins.open(path, mode, *args, **kwargs)


fuzzing.open = report_open

if __name__ == "__main__":
    from autobahntestsuite.wstest import run

    sys.argv[0] = "wstest"
    run()
