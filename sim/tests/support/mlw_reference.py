"""Reference decodes of Ethos-U weight streams with Vela's own decoder.

Usage: mlw_reference.py IN OUT. IN holds streams as (u32 LE length, bytes)*; OUT gets, per
stream, (u32 LE count, count * i16 LE) from ethosu.mlw_codec.decode.
"""
import struct
import sys

from ethosu import mlw_codec


def main():
    data = open(sys.argv[1], "rb").read()
    out = bytearray()
    pos = 0
    while pos < len(data):
        (n,) = struct.unpack_from("<I", data, pos)
        pos += 4
        stream = bytearray(data[pos : pos + n])
        pos += n
        values = mlw_codec.decode(stream)
        out += struct.pack("<I", len(values))
        out += struct.pack("<%dh" % len(values), *values)
    with open(sys.argv[2], "wb") as f:
        f.write(out)


main()
