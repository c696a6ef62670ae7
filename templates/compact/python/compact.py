"""ktune.compact, ktune.masked_select and ktune.nonzero from Python: the compact family's
call on framework arrays."""
from ktune import family
from ktune.family import C

__all__ = ["compact", "masked_select", "nonzero"]

_compact = family.c_function("ktune_c_compact", C.c_int, [C.c_void_p] + [C.c_uint64] * 4 +
                             [C.c_int64, C.c_char_p, C.c_char_p, C.c_uint64, C.c_uint64])
_TYPES = ("f32", "f64", "f16", "bf16", "i32", "i64", "u8")


@family.runtime_method("compact")
def _runtime_compact(runtime, x, mask=None, *, indices=False, out=None, stream=None):
    """The elements of x (a contiguous array, flattened) where mask (a contiguous bool or
    uint8 array of as many elements) is set, or with mask=None where x is nonzero,
    densely and in order. Returns (values, count): values holds x.size slots, of which
    the first `count` (a 1-element int64 device array, not read on the host) are the
    kept ones; with indices=True, (values, positions, count). Nothing is synchronized."""
    call = family.require(_compact, "compact")
    s = family.stream_handle(stream, like=x)
    a = family.as_device_array(x, "x", family.dlpack_stream(s))
    if a.dtype not in _TYPES:
        raise TypeError(f"x is {a.dtype}: compaction takes {', '.join(_TYPES)}")
    if not a.contiguous:
        raise family.InvalidArgument("x must be contiguous (compaction reads it flattened)")
    n = 1
    for size in a.shape:
        n *= size
    flags = 0
    if mask is not None:
        m = family.as_device_array(mask, "mask", family.dlpack_stream(s))
        if m.dtype not in ("u8", "i8") or not m.contiguous or m.shape != a.shape:
            raise family.InvalidArgument(f"mask must be a contiguous bool or uint8 array of shape {a.shape}")
        flags = m.address
    values = out if out is not None else family.empty_like(a, (n,))
    o = family.as_device_array(values, "out", family.dlpack_stream(s))
    if o.dtype != a.dtype or not o.contiguous or o.shape != (n,):
        raise family.InvalidArgument(f"out must be a contiguous {a.dtype} array of shape ({n},)")
    count = family.empty_like(a, (1,), "i64")
    c = family.as_device_array(count, "count", family.dlpack_stream(s))
    positions = family.empty_like(a, (n,), "i64") if indices else None
    where = family.as_device_array(positions, "indices", family.dlpack_stream(s)).address if indices else 0
    if n:
        family.check(call(runtime._handle, o.address, c.address, a.address, flags, n, family.DTYPE_NAMES[a.dtype],
                          b"flags" if mask is not None else b"nonzero", where, s))
    return (values, positions, count) if indices else (values, count)


def compact(x, mask=None, *, indices=False, out=None, stream=None):
    """Stream compaction on the default runtime (Runtime.compact)."""
    return family.default_runtime().compact(x, mask, indices=indices, out=out, stream=stream)


def masked_select(x, mask, *, stream=None):
    """torch.masked_select(x, mask) for same-shape arrays: the kept elements, as a new
    1-D array (reading the count synchronizes with the stream once)."""
    values, count = compact(x, mask, stream=stream)
    return values[: int(count[0])]


def nonzero(x, *, stream=None):
    """The positions of x's nonzero elements (flattened), as torch.nonzero of a 1-D array
    gives them (a new 1-D int64 array; reading the count synchronizes once)."""
    _, positions, count = compact(x, None, indices=True, stream=stream)
    return positions[: int(count[0])]
