"""Hardware counters of any GPU work in this process: CUPTI's range profiler through
libktune_counters.so, the collector `ktune tune --counters` uses, so that a benchmark
counts a peer's kernels (torch.mm's cuBLAS, a Triton kernel) the way ktune counts its
own. See docs/logs.md, "Hardware counters".

    import ktune.counters
    with ktune.counters.Session("default") as s:
        values = s.collect(lambda: torch.mm(a, b, out=c), before_pass=flush)

`fn` runs once per pass (s.passes), after `before_pass` (e.g. an L2 flush; its kernels
are not counted); warm up anything that compiles or autotunes (Triton) before, or its
kernels are counted too. Values: a sum over the kernels for `.sum` metrics, else the
longest kernel's."""
import ctypes
import os
from pathlib import Path

from . import _lib
from .errors import Error, InvalidArgument


class Unavailable(Error):
    """Counters cannot be had here: no CUPTI, restricted to administrators (ERR_NVGPUCTRPERM),
    a metric this GPU lacks, no GPU. The message says which and how to enable them."""


def _library_candidates():
    if os.environ.get("KTUNE_COUNTERS_LIBRARY"):
        yield Path(os.environ["KTUNE_COUNTERS_LIBRARY"])
    yield _lib.path.parent / "libktune_counters.so"  # the installed package: beside libktune.so
    yield _lib.path.parent.parent / "tuner" / "libktune_counters.so"  # a build tree


def _load():
    tried = []
    for path in _library_candidates():
        tried.append(str(path))
        if path.is_file():
            lib = ctypes.CDLL(str(path))
            break
    else:
        raise Unavailable("libktune_counters.so not found; looked in: " + ", ".join(tried) +
                          " (set KTUNE_COUNTERS_LIBRARY to a build's tuner/libktune_counters.so)")
    c = ctypes
    sigs = {"ktune_counters_open": (c.c_void_p, [c.c_int, c.c_char_p, c.c_char_p, c.c_size_t, c.POINTER(c.c_int)]),
            "ktune_counters_close": (None, [c.c_void_p]),
            "ktune_counters_metric_count": (c.c_size_t, [c.c_void_p]),
            "ktune_counters_metric_name": (c.c_char_p, [c.c_void_p, c.c_size_t]),
            "ktune_counters_passes": (c.c_size_t, [c.c_void_p]),
            "ktune_counters_chip": (c.c_char_p, [c.c_void_p]),
            "ktune_counters_collect": (c.c_int, [c.c_void_p, _CALLBACK, _CALLBACK, c.c_void_p,
                                                 c.POINTER(c.c_double), c.c_size_t, c.c_char_p, c.c_size_t])}
    for name, (restype, argtypes) in sigs.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = restype, argtypes
    return lib


_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_library = None


def _current_device():
    import sys
    if "torch" in sys.modules:
        import torch
        if torch.cuda.is_available():
            torch.cuda.init()
            return torch.cuda.current_device()
    return 0


class Session:
    """One collector for `metrics` ("default", or Nsight Compute metric names as a list or
    a comma-separated string) on `device` (torch's current one, else 0). Raises
    Unavailable where counters cannot be had, InvalidArgument for a malformed name."""

    def __init__(self, metrics="default", device=None):
        global _library
        if not isinstance(metrics, str):
            metrics = ",".join(metrics)
        if _library is None:
            _library = _load()
        self._lib = _library
        why, invalid = ctypes.create_string_buffer(2048), ctypes.c_int(0)
        self._handle = self._lib.ktune_counters_open(_current_device() if device is None else int(device),
                                                     metrics.encode(), why, len(why), ctypes.byref(invalid))
        if not self._handle:
            raise (InvalidArgument if invalid.value else Unavailable)(why.value.decode(errors="replace"))
        n = self._lib.ktune_counters_metric_count(self._handle)
        self.metrics = tuple(self._lib.ktune_counters_metric_name(self._handle, i).decode() for i in range(n))
        self.passes = self._lib.ktune_counters_passes(self._handle)
        self.chip = self._lib.ktune_counters_chip(self._handle).decode()

    def collect(self, fn, before_pass=None):
        """{metric: value} for the kernels fn() enqueues (fn runs once per pass)."""
        if not self._handle:
            raise InvalidArgument("ktune.counters: the session is closed")
        raised = []

        def call(f):
            def run(_):
                if raised:
                    return  # a pass after a failure: skip the work, the error is raised below
                try:
                    f()
                except BaseException as e:  # noqa: B036 (handed to the caller below, never swallowed)
                    raised.append(e)
            return _CALLBACK(run)

        launch, before = call(fn), call(before_pass) if before_pass else _CALLBACK()
        values = (ctypes.c_double * len(self.metrics))()
        error = ctypes.create_string_buffer(2048)
        rc = self._lib.ktune_counters_collect(self._handle, launch, before, None, values, len(self.metrics), error,
                                              len(error))
        if raised:
            raise raised[0]
        if rc != 0:
            raise Error("ktune.counters: " + error.value.decode(errors="replace"))
        return dict(zip(self.metrics, values))

    def close(self):
        if self._handle:
            self._lib.ktune_counters_close(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 (interpreter shutdown)
            pass


def collect(fn, metrics="default", before_pass=None, device=None):
    """One collection in a session of its own (see Session)."""
    with Session(metrics, device) as s:
        return s.collect(fn, before_pass)
