"""The one reader of plots/ and tools/: every file taken from a results folder or named by the
user (results.csv and results.json, link_gbs, limits.json, incomplete.txt, nccl-tests output,
A/B CSVs, trace files) is read through read_bytes/read_text/read_json here (a file about to be rewritten, such as
summary.md, through read_replaced), and every number taken from text through decimal().

A results folder can come from anywhere (copied, unpacked, cloned: git keeps symlinks), so:
- a file is opened without following a symlink (O_NOFOLLOW: a link planted at link_gbs never
  shows /etc/shadow) and with O_NONBLOCK (a FIFO never hangs the open); it must be a regular
  file no larger than the caller's cap, checked before a byte is read;
- text must be valid UTF-8; JSON must be nested at most MAX_DEPTH deep, hold no NaN or Infinity
  and no number that overflows to one, and no string that is not valid Unicode;
- a number is the ASCII decimal grammar of base/decimal.h (Python's int() and float() also take
  '٨', '１', '1_000', ' 8', 'inf' and 'nan'), finite, in the caller's range;
- an error is one line (InputError) naming the file, quoting at most EXCERPT characters of what
  it found, escaped (excerpt()).
"""
import errno
import json
import math
import os
import re
import stat

EXCERPT = 40  # characters of a bad value an error message quotes
MAX_DEPTH = 32  # JSON nesting: collbench's deepest is 4 (meta.limits.pcie.gpu)
_INTEGER = re.compile(r"-?[0-9]+")
_REAL = re.compile(r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
_DIGITS_MAX = 40  # longer digit strings are refused before int() (Python's own limit is 4300)


class InputError(Exception):
    """Bad input; str() is the message for stderr (one line)."""


def shown(s):
    """A name fit for a message, heading or title: bytes that are not UTF-8 (a folder name
    decoded with surrogateescape) as \\xNN, control characters as spaces."""
    s = os.fsencode(s).decode("utf-8", "backslashreplace") if isinstance(s, str) else str(s)
    return "".join(" " if ord(c) < 32 or ord(c) == 127 else c for c in s)


def excerpt(value, n=EXCERPT, quote=True):
    """At most n characters of value (str or bytes), quoted (unless not quote), every character
    that is not printable (control characters, line breaks, invalid UTF-8) escaped: safe in a
    one-line message."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "backslashreplace")
    value = str(value)
    cut = len(value) > n
    out = []
    for c in value[:n]:
        if c == "\\" or c == "'":
            out.append("\\" + c)
        elif c.isprintable():
            out.append(c)
        else:
            out.append(c.encode("unicode_escape").decode("ascii"))
    q = "'" if quote else ""
    return q + "".join(out) + q + ("..." if cut else "")


def json_excerpt(v, n=EXCERPT):
    """A parsed JSON value as JSON text (escaped: ensure_ascii), at most n characters of it."""
    text = json.dumps(v, ensure_ascii=True)
    return text[:n] + ("..." if len(text) > n else "")


def _size(n):
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB" if n >= 1 << 10 else f"{n} bytes"


def read_bytes(path, cap, absent_ok=False):
    """The bytes of the regular file at path (at most cap of them), opened without following a
    symlink; None when nothing is there and absent_ok. InputError otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        if absent_ok:
            return None
        raise InputError(f"{shown(path)}: cannot read (no such file)")
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise InputError(f"{shown(path)}: a symbolic link (never followed: name the file itself)")
        raise InputError(f"{shown(path)}: cannot read ({e.strerror})")
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise InputError(f"{shown(path)}: a folder, not a regular file")
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{shown(path)}: not a regular file (a device, FIFO or socket)")
        if st.st_size > cap:
            raise InputError(f"{shown(path)}: {st.st_size} bytes, more than the {_size(cap)} such a file can be")
        chunks, left = [], cap + 1
        while left > 0:
            b = os.read(fd, min(left, 1 << 20))
            if not b:
                break
            chunks.append(b)
            left -= len(b)
    except OSError as e:
        raise InputError(f"{shown(path)}: cannot read ({e.strerror})")
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > cap:  # it grew while being read
        raise InputError(f"{shown(path)}: more than the {_size(cap)} such a file can be")
    return data


def read_replaced(path, cap):
    """The UTF-8 text of the file a writer is about to replace (summary.md, whose verdict section
    is rewritten): "" when nothing or a symlink is there (the writer replaces the link and never
    reads through it), else read_text's rules (a FIFO, device or folder, more than cap bytes or
    text that is not UTF-8: InputError, never a silent cut)."""
    if os.path.islink(path):
        return ""
    return read_text(path, cap, absent_ok=True) or ""


def decode(data, where, bom=False):
    """UTF-8 bytes -> str (a leading byte-order mark dropped when bom); InputError otherwise."""
    try:
        return data.decode("utf-8-sig" if bom else "utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{shown(where)}: not UTF-8 text (byte {e.start})")


def read_text(path, cap, absent_ok=False, bom=False):
    """The UTF-8 text of the regular file at path (read_bytes' rules); None when absent and absent_ok."""
    data = read_bytes(path, cap, absent_ok)
    return None if data is None else decode(data, path, bom)


def _depth(text):
    """The deepest nesting of [ and { in JSON text, strings skipped."""
    depth = deepest = 0
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[{]|[\]}]', text):
        c = m.group()[0]
        if c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth -= 1
    return deepest


def _refuse_constant(name):
    raise ValueError(f"{name} is not a number JSON allows")


def _finite_float(s):
    v = float(s)
    if not math.isfinite(v):
        raise ValueError(f"{s[:EXCERPT]} overflows to infinity")
    return v


def _int(s):
    if len(s) > _DIGITS_MAX:
        raise ValueError(f"an integer of {len(s)} digits")
    return int(s)


def unicode_ok(v):
    """True when every string in v (keys too) encodes as UTF-8 (JSON allows lone surrogates)."""
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            try:
                x.encode("utf-8")
            except UnicodeEncodeError:
                return False
        elif isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return True


def parse_json(text, where):
    """JSON text (str or UTF-8 bytes) -> the document; InputError for anything else: syntax,
    nesting deeper than MAX_DEPTH, NaN/Infinity, a number that overflows, a lone surrogate."""
    if isinstance(text, bytes):
        text = decode(text, where)
    if _depth(text) > MAX_DEPTH:
        raise InputError(f"{shown(where)}: JSON nested more than {MAX_DEPTH} deep")
    try:
        doc = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float, parse_int=_int)
    except RecursionError:
        raise InputError(f"{shown(where)}: JSON nested too deeply")
    except ValueError as e:
        raise InputError(f"{shown(where)}: not valid JSON ({shown(str(e))[:120]})")
    if not unicode_ok(doc):
        raise InputError(f"{shown(where)}: a JSON string is not valid Unicode (a lone surrogate escape)")
    return doc


def read_json(path, cap, absent_ok=False):
    """The JSON document in the regular file at path (read_bytes' and parse_json's rules)."""
    text = read_text(path, cap, absent_ok)
    return None if text is None else parse_json(text, path)


def decimal(s, integer=False):
    """The number s spells in the ASCII decimal grammar (integer: -?[0-9]+; real: also a fraction
    and an exponent), or None when s is anything else or not finite (1e999)."""
    if not isinstance(s, str) or not (_INTEGER if integer else _REAL).fullmatch(s):
        return None
    if integer:
        return int(s) if len(s) <= _DIGITS_MAX else None
    v = float(s)
    return v if math.isfinite(v) else None


def number(s, where, what, lo, hi, integer=False):
    """decimal(s) within [lo, hi]; InputError quoting an excerpt of s otherwise."""
    v = decimal(s, integer)
    if v is None or not lo <= v <= hi:
        kind = "a whole number" if integer else "a number"
        raise InputError(f"{shown(where)}: {what} is {excerpt(s)}, expected {kind} from {lo:g} to {hi:g}")
    return v


def json_number(v, lo, hi, integer=False):
    """Whether the JSON value v is a number (not a bool), finite, in [lo, hi]; with integer, a
    JSON integer (4, never 4.0: a count or a PCIe generation is written as one)."""
    if isinstance(v, bool) or not isinstance(v, int if integer else (int, float)):
        return False
    if isinstance(v, float) and not math.isfinite(v):
        return False
    return lo <= v <= hi


def one_line(v, n=256):
    """Whether v is a string of at most n characters with no control character (it goes into a
    CSV cell, a title or a table cell)."""
    return isinstance(v, str) and len(v) <= n and not any(ord(c) < 32 or ord(c) == 127 for c in v)
