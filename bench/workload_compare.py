#!/usr/bin/env python3
"""Compares tuning databases (`ktune cache export` JSON): the first is the reference.
For each other one: whether it holds the same keys (family, variant, dtype, shape,
align, device), how many winners are the same config, and the ratio of its winner's
stored median time to the reference's, per key (timed in different runs: a ratio near
1 means the same winner within noise).
  workload_compare.py ONE.json OTHER.json [OTHER.json ...]
"""
import json
import statistics
import sys


def records(path):
    doc = json.load(open(path))
    out = {}
    for r in doc["records"]:
        key = (r["device_key"], r["family"], r.get("variant", ""), r["dtype"], tuple(r["shape"]), r.get("align", 1))
        out[key] = r
    return out


def main():
    ref = records(sys.argv[1])
    print(f"{sys.argv[1]}: {len(ref)} records")
    for path in sys.argv[2:]:
        other = records(path)
        missing, extra = set(ref) - set(other), set(other) - set(ref)
        shared = sorted(set(ref) & set(other))
        same = sum(ref[k]["config"] == other[k]["config"] for k in shared)
        ratios = sorted(other[k]["median_us"] / ref[k]["median_us"] for k in shared)
        print(f"{path}: {len(other)} records, {len(missing)} missing, {len(extra)} extra; same winner config at "
              f"{same} of {len(shared)}; winner time / reference: median {statistics.median(ratios):.3f}, "
              f"min {ratios[0]:.3f}, max {ratios[-1]:.3f}")
        for k in shared:
            r = other[k]["median_us"] / ref[k]["median_us"]
            if abs(r - 1) > 0.03:
                print(f"  {k[1]} {k[2]} {k[3]} {'x'.join(map(str, k[4]))}: {ref[k]['median_us']:.2f} us vs "
                      f"{other[k]['median_us']:.2f} us ({r:.3f})")
        for k in sorted(missing):
            print(f"  missing: {k[1:]}")


if __name__ == "__main__":
    main()
