#!/usr/bin/env python3
"""Checks that a rendered chart is a real, non-blank image (standard library only).

PNG: the 8-byte signature, chunk CRCs, IHDR width/height equal to the size requested, IDAT
that zlib-decompresses to exactly height x (1 + stride) bytes, and, after undoing the PNG row
filters, enough distinct colours and enough non-background pixels that something was drawn
(a blank or single-colour image fails). SVG: parses as XML, root <svg> with the requested
width/height, and a fair number of drawn elements.
usage: imagecheck.py WIDTH HEIGHT FILE...   (exit 1 and one line per bad file)
"""
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
BYTES_PER_PIXEL = {0: 1, 2: 3, 4: 2, 6: 4}  # colour type -> channels (8-bit depth only)
MIN_COLOURS = 8          # axes, text anti-aliasing and a few lines give far more than this
MIN_INK_FRACTION = 0.01  # at least 1% of pixels differ from the most common (background) one
MIN_SVG_ELEMENTS = 20


class BadImage(Exception):
    pass


def _chunks(data):
    pos = len(PNG_SIGNATURE)
    while pos + 12 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if len(body) != length:
            raise BadImage(f"chunk {kind!r} is cut off")
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(kind + body) != crc:
            raise BadImage(f"chunk {kind!r} has a bad CRC")
        yield kind, body
        pos += 12 + length


def _unfilter(raw, width, height, bpp):
    """Undoes the per-row PNG filters (None, Sub, Up, Average, Paeth); returns the rows."""
    stride = width * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(height):
        start = y * (stride + 1)
        ftype, row = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if ftype == 1:
            for i in range(bpp, stride):
                row[i] = (row[i] + row[i - bpp]) & 0xFF
        elif ftype == 2:
            row = bytearray((a + b) & 0xFF for a, b in zip(row, prev))
        elif ftype == 3:
            for i in range(stride):
                left = row[i - bpp] if i >= bpp else 0
                row[i] = (row[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif ftype == 4:
            for i in range(stride):
                a = row[i - bpp] if i >= bpp else 0
                b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        elif ftype != 0:
            raise BadImage(f"row {y} has unknown filter type {ftype}")
        rows.append(bytes(row))
        prev = row
    return rows


def check_png(path, width, height):
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(PNG_SIGNATURE):
        raise BadImage("no PNG signature")
    chunks = list(_chunks(data))
    if not chunks or chunks[0][0] != b"IHDR" or chunks[-1][0] != b"IEND":
        raise BadImage("chunks do not start with IHDR and end with IEND")
    w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    if (w, h) != (width, height):
        raise BadImage(f"IHDR says {w}x{h}, expected {width}x{height}")
    if depth != 8 or ctype not in BYTES_PER_PIXEL or interlace != 0:
        raise BadImage(f"unexpected format: depth {depth}, colour type {ctype}, interlace {interlace}")
    bpp = BYTES_PER_PIXEL[ctype]
    raw = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    if len(raw) != h * (1 + w * bpp):
        raise BadImage(f"IDAT holds {len(raw)} bytes, expected {h * (1 + w * bpp)}")
    counts = {}
    for row in _unfilter(raw, w, h, bpp):
        for x in range(0, len(row), bpp):
            px = row[x:x + bpp]
            counts[px] = counts.get(px, 0) + 1
    ink = 1 - max(counts.values()) / (w * h)
    if len(counts) < MIN_COLOURS or ink < MIN_INK_FRACTION:
        raise BadImage(f"looks blank: {len(counts)} distinct colours, {ink:.1%} non-background pixels")
    return len(counts), ink


def check_svg(path, width, height):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        raise BadImage(f"not well-formed XML ({e})")
    if not root.tag.endswith("svg"):
        raise BadImage(f"root element is <{root.tag}>, not <svg>")
    if (root.get("width"), root.get("height")) != (str(width), str(height)):
        raise BadImage(f"size {root.get('width')}x{root.get('height')}, expected {width}x{height}")
    drawn = sum(1 for e in root.iter() if e.tag.split("}")[-1] in ("path", "text", "use", "line"))
    if drawn < MIN_SVG_ELEMENTS:
        raise BadImage(f"only {drawn} drawn elements")
    return drawn


def check(path, width, height):
    """Raises BadImage with the reason; dispatches on the file name."""
    try:
        if path.endswith(".png"):
            return check_png(path, width, height)
        if path.endswith(".svg"):
            return check_svg(path, width, height)
    except (OSError, zlib.error, struct.error) as e:
        raise BadImage(str(e))
    raise BadImage("neither .png nor .svg")


def main(argv):
    if len(argv) < 4:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    width, height, bad = int(argv[1]), int(argv[2]), 0
    for path in argv[3:]:
        try:
            check(path, width, height)
        except BadImage as e:
            print(f"{path}: {e}", file=sys.stderr)
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
