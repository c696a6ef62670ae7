#!/usr/bin/env python3
"""Writes capture bundles for the CLI tests, independently of ktune's own writer (the
format of cache/include/ktune/cache/capture_bundle.hpp):
  make_capture.py kernel SOURCE.cu N OUT.ktcap [F]   scale.cu's y = 2 x on n = N random f32
                                                 (F: the reference is y = F x instead)
  make_capture.py problem JSON_KEY OUT.ktcap     a built-in call's record key
"""
import json
import random
import struct
import sys
import zlib


def fnv1a64(data: bytes, h: int = 14695981039346656037) -> int:
    for c in data:
        h = ((h ^ c) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def write(path, header, buffers):
    listed, blobs, content = [], [], fnv1a64(json.dumps(header, sort_keys=True, separators=(",", ":")).encode())
    for name, phase, raw in buffers:
        stored = zlib.compress(raw, 1)
        digest = "%016x" % fnv1a64(raw)
        content = fnv1a64(digest.encode(), content)
        listed.append({"name": name, "phase": phase, "bytes": len(raw), "stored": len(stored), "hash": digest})
        blobs.append(stored)
    header = dict(header, buffers=listed, content_hash="%016x" % content)
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(b"KTUNECAP" + struct.pack("<II", 1, len(text)) + text + b"".join(blobs))


def common(key):
    return dict(key, align=1, device="Some Other GPU", device_key="Some Other GPU|sm_80|108sm|40536MiB|40MiB",
                captured_at="2026-11-23T09:00:00Z")


def kernel(source_path, n, out, factor=2.0):
    source = open(source_path).read()
    rng = random.Random(n)
    x = [rng.randint(-64, 64) / 8 for _ in range(n)]
    key = {"kind": "kernel", "family": "scale_test", "variant": "%016x" % fnv1a64(source.encode()), "dtype": "f32",
           "shape": [n]}
    header = dict(common(key), kernel="scale_test", entry="scale", origin=source_path, source=source, type="f32",
                  problem={"n": n}, scalars={"n": n}, launch={"grid": [1, 1, 1], "block": [64, 1, 1], "smem": 0},
                  config="threads=64 bug=0", match="fallback")
    write(out, header, [("x", "input", struct.pack("<%df" % n, *x)),
                        ("y", "expected", struct.pack("<%df" % n, *[factor * v for v in x]))])


if __name__ == "__main__":
    if sys.argv[1] == "kernel":
        kernel(sys.argv[2], int(sys.argv[3]), sys.argv[4], *map(float, sys.argv[5:]))
    else:
        write(sys.argv[3], common(dict(json.loads(sys.argv[2]), kind="problem")), [])
