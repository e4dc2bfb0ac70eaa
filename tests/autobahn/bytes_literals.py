"""Turns the Python 2 byte-string literals of autobahntestsuite's cases
into Python 3 bytes literals with the same bytes.

In Python 2 a plain literal is the source file's bytes: `'\\xce\\xba'` is two
bytes and `'µ'` is its UTF-8 encoding. After 2to3 both are `str` in Python 3,
which the suite then sends as payloads, hands to the UTF-8 validator and
compares with the bytes it receives. Only literals with `\\x` escapes or
non-ASCII characters change; ASCII ones stay `str` and are encoded where
they are sent (see the hand patches in port.sh).

Usage: python3 bytes_literals.py FILE...   (rewrites each FILE in place)
"""
import io
import re
import sys
import tokenize

PLAIN = re.compile(r"^('''|\"\"\"|'|\")")


def as_bytes_literal(text):
    """The bytes literal equal to what Python 2 made of `text`."""
    out = []
    for ch in text:
        if ord(ch) < 128:
            out.append(ch)
        else:
            out.extend("\\x%02x" % b for b in ch.encode("utf-8"))
    return "b" + "".join(out)


def needs_bytes(text):
    body = text.strip("'\"")
    return "\\x" in body or any(ord(c) > 127 for c in body)


def rewrite(source):
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    lines = source.splitlines(keepends=True)
    # Replace from the end so earlier positions stay valid.
    for tok in reversed(tokens):
        if tok.type != tokenize.STRING or not PLAIN.match(tok.string):
            continue
        if not needs_bytes(tok.string) or tok.start[0] != tok.end[0]:
            continue
        row, col = tok.start
        line = lines[row - 1]
        lines[row - 1] = line[:col] + as_bytes_literal(tok.string) + line[tok.end[1]:]
    return "".join(lines)


if __name__ == "__main__":
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            src = f.read()
        new = rewrite(src)
        if new != src:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
