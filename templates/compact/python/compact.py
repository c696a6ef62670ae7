"""ktune.compact, ktune.masked_select and ktune.nonzero from Python: the compact family's
call on framework arrays."""
import math

from ktune import family
from ktune.family import C

__all__ = ["compact", "masked_select", "nonzero"]

_compact = family.c_function("ktune_c_compact", C.c_int, [C.c_void_p] + [C.c_uint64] * 4 +
                             [C.c_int64, C.c_char_p, C.c_char_p, C.c_uint64, C.c_uint64])
_if_new = family.c_function("ktune_c_compact_if_new", C.c_void_p, [C.c_void_p, C.c_char_p, C.c_char_p])
_if_free = family.c_function("ktune_c_compact_if_free", None, [C.c_void_p])
_if_call = family.c_function("ktune_c_compact_if_call", C.c_int, [C.c_void_p] + [C.c_uint64] * 3 +
                             [C.c_int64, C.c_uint64, C.c_uint64])
_TYPES = ("f32", "f64", "f16", "bf16", "i32", "i64", "u8")


class _Predicate:
    """A compiled predicate's handle (rt.compact_if), kept per (runtime, predicate, dtype)."""

    def __init__(self, runtime, predicate, dtype):
        self._handle = family.check(_if_new(runtime._handle, family.c_text(predicate, "where"),
                                            family.DTYPE_NAMES[dtype]))

    def __del__(self, _free=_if_free):
        if getattr(self, "_handle", None):
            _free(self._handle)
            self._handle = None


def _predicate(runtime, predicate, dtype):
    cache = runtime.__dict__.setdefault("_compact_predicates", {})
    key = (predicate, dtype)
    if key not in cache:
        cache[key] = _Predicate(runtime, predicate, dtype)
    return cache[key]


@family.runtime_method("compact")
def _runtime_compact(runtime, x, mask=None, *, where=None, indices=False, out=None, stream=None):
    """The elements of x (a contiguous array, flattened) where mask (a contiguous bool or
    uint8 array of as many elements) is set, or where the predicate `where` holds (the
    elementwise expression language, the element named x: "keep = x > 0"), or with
    neither where x is nonzero, densely and in order. Returns (values, count): values is a
    new 1-D array of x's dtype with x.size slots, of which the first `count` (a 1-element
    int64 device array, not read on the host) are the kept ones; with indices=True,
    (values, positions, count), positions int64 flat indices. Nothing is synchronized, so
    it can be captured in a CUDA graph. No gradient (its output size is data-dependent)."""
    call = family.require(_compact, "compact")
    if family.needs_grad(x):
        raise family.InvalidArgument("compact has no gradient and x requires grad: its result would be detached "
                                     "silently; call it under torch.no_grad() (or on x.detach())")
    s = family.stream_handle(stream, like=x)
    a = family.as_device_array(x, "x", family.dlpack_stream(s))
    if a.dtype not in _TYPES:
        raise TypeError(f"x is {a.dtype}: compaction takes {', '.join(_TYPES)}")
    if not a.contiguous:
        raise family.InvalidArgument("x must be contiguous (compaction reads it flattened)")
    n = math.prod(a.shape)
    if mask is not None and where is not None:
        raise family.InvalidArgument("give mask or where, not both")
    handle = _predicate(runtime, str(where), a.dtype) if where is not None else None
    flags = 0
    if mask is not None:
        m = family.as_device_array(mask, "mask", family.dlpack_stream(s))
        if m.dtype not in ("u8", "i8") or not m.contiguous or m.shape != a.shape:
            raise family.InvalidArgument(f"mask must be a contiguous bool or uint8 array of shape {a.shape}")
        flags = m.address
    if out is None:
        values, o = family.new_array(a, (n,))
    else:
        values, o = out, family.as_device_array(out, "out", family.dlpack_stream(s))
        if o.dtype != a.dtype or not o.contiguous or o.shape != (n,):
            raise family.InvalidArgument(f"out must be a contiguous {a.dtype} array of shape ({n},)")
    count, c = family.new_array(a, (1,), "i64")
    positions, at = None, 0
    if indices:
        positions, p = family.new_array(a, (n,), "i64")
        at = p.address
    if n and handle is not None:
        family.check(_if_call(handle._handle, o.address, c.address, a.address, n, at, s))
    elif n:
        family.check(call(runtime._handle, o.address, c.address, a.address, flags, n, family.DTYPE_NAMES[a.dtype],
                          b"flags" if mask is not None else b"nonzero", at, s))
    else:  # nothing kept of nothing
        count[...] = 0
    return (values, positions, count) if indices else (values, count)


def compact(x, mask=None, *, where=None, indices=False, out=None, stream=None):
    """Stream compaction on the default runtime (Runtime.compact)."""
    return family.default_runtime().compact(x, mask, where=where, indices=indices, out=out, stream=stream)


def masked_select(x, mask, *, stream=None):
    """torch.masked_select(x, mask) for same-shape arrays: the kept elements, as a new
    1-D array. Synchronizes: its size is the count, read on the host (so it cannot be
    captured in a CUDA graph: it refuses before enqueuing anything; capture compact())."""
    family.refuse_under_capture(family.stream_handle(stream, like=x), "masked_select")
    values, count = compact(x, mask, stream=stream)
    return values[: int(count[0])]


def nonzero(x, *, stream=None):
    """The flat positions of x's nonzero elements in memory order (a new 1-D int64 array;
    for a 1-D x this is torch.nonzero(x).flatten(); for a matrix, the index into its
    flattened elements, not torch.nonzero's (row, col) pairs). Synchronizes to read the
    count (not capturable: it refuses before enqueuing anything; capture compact())."""
    family.refuse_under_capture(family.stream_handle(stream, like=x), "nonzero")
    _, positions, count = compact(x, None, indices=True, stream=stream)
    return positions[: int(count[0])]
