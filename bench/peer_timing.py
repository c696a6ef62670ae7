"""The timing protocol the PyTorch peers share with ktune: events around the op only,
the L2 flushed before each repetition by reading a buffer of twice its size, median."""
import os
import statistics
import sys
import time

import torch


def l2_flush_buffer():
    props = torch.cuda.get_device_properties(0)
    return torch.ones(2 * props.L2_cache_size // 4, dtype=torch.float32, device="cuda")


def timed(fn, flush, reps=30, warmup=5, hide_launch=False, warmup_ms=20):
    """Median microseconds of fn() over reps repetitions, each after flush.sum().
    Warm-up: at least `warmup` repetitions and `warmup_ms` of wall time. After the host
    has been busy (allocating, checking), five repetitions of a 100-us kernel left the
    first buffer set of a problem 8-14% slow (f32 8191x4097, H200 and H100).
    hide_launch: queue a spin kernel (~0.5 ms) before the start event, so that the GPU
    is still busy when the host has launched fn and the host's launch cost (tens of
    microseconds for a Triton kernel) stays out of the interval. (A spin of ~50 us left
    2-5x outliers in every peer's times, Triton's most, on two H100 machines whose host
    was at times slower.)"""
    start, done = time.perf_counter(), 0
    while done < warmup or time.perf_counter() - start < warmup_ms / 1e3:
        flush.sum()
        fn()
        torch.cuda.synchronize()
        done += 1
    times = []
    for _ in range(reps):
        flush.sum()
        if hide_launch:
            torch.cuda._sleep(1_000_000)
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1e3)
    return statistics.median(times)


def ktune_package(build, who):
    """The Python package of this checkout over a build's libktune.so (BUILD/runtime), or
    None, said on stderr by `who`, where it does not load."""
    os.environ.setdefault("KTUNE_LIBRARY", os.path.join(os.path.abspath(build), "runtime", "libktune.so"))
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    try:
        import ktune
        return ktune
    except ImportError as e:
        print(f"{who}: no Python package: {e}", file=sys.stderr)
        return None


def counters_wanted(args):
    """(args without "--counters", a ktune.counters.Session of the default metrics or None):
    call after ktune_package, so that the checkout's package is the one imported."""
    if "--counters" not in args:
        return args, None
    from ktune import counters
    return [a for a in args if a != "--counters"], counters.Session("default")


def counted(session, flush, fn):
    """fn's hardware counters (the L2 flushed before each pass), or {"error": why}: one
    peer's failure is recorded, the others still counted."""
    try:
        return session.collect(fn, before_pass=lambda: flush.sum())
    except Exception as e:  # noqa: BLE001 (recorded in the bench's line)
        return {"error": f"{type(e).__name__}: {str(e)[:300]}"}
