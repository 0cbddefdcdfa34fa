#!/usr/bin/env python3
"""A PNG screenshot's facts for the page tests, as JSON: its size, how many distinct colours
it holds (1: a blank page), and the colour of its top-left pixel (the page's background).

Decodes what Chromium writes: 8-bit RGB or RGBA, not interlaced, the five row filters of the
PNG specification (W3C PNG, section 9).
"""
import json
import struct
import sys
import zlib


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def rows(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit("not a PNG")
    position, idat = 8, b""
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise SystemExit(f"unsupported PNG: depth {depth}, colour type {colour}, interlace {interlace}")
        elif kind == b"IDAT":
            idat += body
        position += 12 + length
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up = previous[x]
            upper_left = previous[x - channels] if x >= channels else 0
            predictor = [0, left, up, (left + up) // 2, paeth(left, up, upper_left)][kind]
            line[x] = (line[x] + predictor) & 0xFF
        yield [tuple(line[x:x + 3]) for x in range(0, stride, channels)]
        previous = line


def main():
    colours, first, size = set(), None, [0, 0]
    for row in rows(open(sys.argv[1], "rb").read()):
        first = first or row[0]
        colours.update(row)
        size = [len(row), size[1] + 1]
    print(json.dumps({"width": size[0], "height": size[1], "colours": len(colours), "background": "#%02x%02x%02x" % first}))


if __name__ == "__main__":
    main()
