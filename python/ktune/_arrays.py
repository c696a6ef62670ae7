"""Device arrays of any framework: __dlpack__ (PyTorch, CuPy, JAX) or
__cuda_array_interface__; their framework's current stream; new arrays like them."""
import ctypes
import operator
import sys

from .errors import InvalidArgument

# DLPack's DLDataType (code, bits) -> ktune's dtype names, and back.
_DL = {(2, 16): "f16", (2, 32): "f32", (2, 64): "f64", (4, 16): "bf16", (0, 8): "i8", (0, 16): "i16",
       (0, 32): "i32", (0, 64): "i64", (1, 8): "u8", (6, 8): "u8"}  # bool: its bytes, as u8
_TYPESTR = {"<f2": "f16", "<f4": "f32", "<f8": "f64", "|i1": "i8", "<i2": "i16", "<i4": "i32", "<i8": "i64",
            "|u1": "u8", "|b1": "u8"}
SIZE = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i8": 1, "u8": 1, "i16": 2, "i32": 4, "i64": 8}
_KDL_CPU, _KDL_CUDA, _KDL_CUDA_MANAGED = 1, 2, 13


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32),
                ("ndim", ctypes.c_int32), ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype, _get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
_is_valid = ctypes.pythonapi.PyCapsule_IsValid
_is_valid.restype, _is_valid.argtypes = ctypes.c_int, [ctypes.py_object, ctypes.c_char_p]


class DeviceArray:
    """A device array's address, shape, strides (in elements), dtype and device; holds
    what keeps the memory alive (the array, and its DLPack capsule) while it is used."""

    __slots__ = ("obj", "address", "shape", "strides", "dtype", "device", "_keep", "_contiguous")

    def __init__(self, obj, address, shape, strides, dtype, device, keep=None, contiguous=None):
        self.obj, self.address, self.shape, self.strides = obj, address, tuple(shape), tuple(strides)
        self.dtype, self.device, self._keep, self._contiguous = dtype, device, keep, contiguous

    @property
    def framework(self):
        return type(self.obj).__module__.split(".")[0]

    @property
    def contiguous(self):
        """Dense row-major (a dimension of size 1 may have any stride)."""
        if self._contiguous is None:
            self._contiguous = all(n == 1 or s == want for n, s, want in
                                   zip(self.shape, self.strides, contiguous_strides(self.shape)))
        return self._contiguous


def contiguous_strides(shape):
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


# Bounds on what an array description may claim, checked before anything is read from it
# or computed with it: a C int64 must hold every size, stride and element count.
MAX_NDIM, MAX_EXTENT = 32, 2**62


def as_integer(value):
    """value as a Python int where it is an integer (int, numpy's integers: __index__),
    else None; a bool is not one."""
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def checked_geometry(name, shape, strides):
    """shape and strides as tuples of ints within bounds, and their element count; a
    clear error for anything else (a hostile or broken description)."""
    if not isinstance(shape, (tuple, list)) or len(shape) > MAX_NDIM:
        raise InvalidArgument(f"{name}: shape {shape!r} is not a tuple of at most {MAX_NDIM} sizes")
    if strides is not None and (not isinstance(strides, (tuple, list)) or len(strides) != len(shape)):
        raise InvalidArgument(f"{name}: strides {strides!r} do not match its {len(shape)}-D shape")
    sizes = [as_integer(n) for n in shape]
    if any(n is None or not 0 <= n < MAX_EXTENT for n in sizes):
        raise InvalidArgument(f"{name}: shape {tuple(shape)!r} holds a size that is not an integer in 0 .. 2^62")
    count = 1
    for n in sizes:
        count *= n
    if count >= MAX_EXTENT:
        raise InvalidArgument(f"{name}: shape {tuple(shape)!r} holds 2^62 elements or more")
    steps = None if strides is None else [as_integer(st) for st in strides]
    if steps is not None and any(st is None or not -MAX_EXTENT < st < MAX_EXTENT for st in steps):
        raise InvalidArgument(f"{name}: strides {tuple(strides)!r} hold one that is not an integer within 2^62")
    return tuple(sizes), (tuple(steps) if steps is not None else contiguous_strides(sizes)), count


# DLPack's capsules: the legacy one holds a DLManagedTensor (its DLTensor first); a
# DLPack 1.0 "dltensor_versioned" one a DLManagedTensorVersioned (version, manager
# context, deleter and flags, then the DLTensor).
_CAPSULES = ((b"dltensor", 0), (b"dltensor_versioned", 32))


def _dltensor(capsule, name):
    if type(capsule).__name__ != "PyCapsule":
        raise InvalidArgument(f"{name}: __dlpack__ returned a {type(capsule).__name__}, not a DLPack capsule")
    for capsule_name, offset in _CAPSULES:
        if _is_valid(capsule, capsule_name):
            return _DLTensor.from_address(_get_pointer(capsule, capsule_name) + offset)
    raise InvalidArgument(f"{name}: its DLPack capsule was already used (a released array), or is not a DLPack "
                          "tensor (its name is neither 'dltensor' nor 'dltensor_versioned')")


def _from_dlpack(x, name, stream):
    try:
        capsule = x.__dlpack__(stream=stream) if stream is not None else x.__dlpack__()
    except TypeError:
        capsule = x.__dlpack__()
    t = _dltensor(capsule, name)
    if t.device_type not in (_KDL_CUDA, _KDL_CUDA_MANAGED):
        raise InvalidArgument(f"{name} is not on a CUDA device (DLPack device type {t.device_type}): "
                              "ktune takes device arrays")
    if t.lanes != 1 or (t.code, t.bits) not in _DL:
        raise TypeError(f"{name}: dtype (code {t.code}, {t.bits} bits, {t.lanes} lanes) is not one ktune takes "
                        f"({', '.join(sorted(SIZE))})")
    if not 0 <= t.ndim <= MAX_NDIM:  # before the shape is read: ndim says how far
        raise InvalidArgument(f"{name}: a DLPack tensor of {t.ndim} dimensions (at most {MAX_NDIM})")
    if t.ndim and not t.shape:
        raise InvalidArgument(f"{name}: a DLPack tensor of {t.ndim} dimensions without a shape")
    raw_shape = [t.shape[i] for i in range(t.ndim)]
    raw_strides = [t.strides[i] for i in range(t.ndim)] if t.strides else None
    shape, strides, _ = checked_geometry(name, raw_shape, raw_strides)
    return DeviceArray(x, (t.data or 0) + t.byte_offset, shape, strides, _DL[(t.code, t.bits)], t.device_id,
                       keep=capsule)


def _from_cai(x, name):
    cai = x.__cuda_array_interface__
    if not isinstance(cai, dict) or not isinstance(cai.get("typestr"), str) or "shape" not in cai:
        raise InvalidArgument(f"{name}: __cuda_array_interface__ must be a dict with 'shape', 'typestr' and 'data' "
                              f"(version 3), not {cai!r:.200}")
    dtype = _TYPESTR.get(cai["typestr"])
    if dtype is None:
        raise TypeError(f"{name}: dtype {cai['typestr']} is not one ktune takes ({', '.join(sorted(SIZE))})")
    data = cai.get("data")
    if not isinstance(data, (tuple, list)) or len(data) != 2 or as_integer(data[0]) is None or \
            not 0 <= as_integer(data[0]) < 2**64:
        raise InvalidArgument(f"{name}: __cuda_array_interface__['data'] must be (address, read_only), not {data!r:.100}")
    strides = cai.get("strides")
    if strides is not None:
        if not isinstance(strides, (tuple, list)) or any(as_integer(b) is None or b % SIZE[dtype] for b in strides):
            raise InvalidArgument(f"{name}: strides {strides!r:.100} are not whole elements of {dtype} in bytes")
        strides = [as_integer(b) // SIZE[dtype] for b in strides]
    shape, strides, _ = checked_geometry(name, cai["shape"], strides)
    device = getattr(getattr(x, "device", None), "index", None)
    if device is None:
        device = getattr(getattr(x, "device", None), "id", 0)
    return DeviceArray(x, as_integer(data[0]), shape, strides, dtype, device or 0)


_torch_dtypes = {}
_torch_by_name = {}
TORCH_DTYPES = _torch_dtypes  # torch dtype -> ktune's name, filled once PyTorch is seen


_torch_tensor = [None]  # torch.Tensor, once PyTorch is seen


def _torch_table():
    if not _torch_dtypes:
        torch = sys.modules["torch"]
        _torch_tensor[0] = torch.Tensor
        _torch_dtypes.update({torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16", torch.float64: "f64",
                              torch.int8: "i8", torch.uint8: "u8", torch.int16: "i16", torch.int32: "i32",
                              torch.int64: "i64", torch.bool: "u8"})
        _torch_by_name.update({v: k for k, v in _torch_dtypes.items() if k is not torch.bool})
    return _torch_dtypes


def torch_dtype(name):
    """PyTorch's dtype for a ktune dtype name ("bf16" -> torch.bfloat16)."""
    _torch_table()
    if name not in _torch_by_name:
        raise InvalidArgument(f"unknown dtype {name!r} (known: {', '.join(sorted(_torch_by_name))})")
    return _torch_by_name[name]


def _from_torch(x, name):
    """PyTorch's tensors read directly: a DLPack export costs tens of microseconds."""
    dtype = (_torch_dtypes or _torch_table()).get(x.dtype)
    device = x.get_device()  # -1 on the CPU
    if device < 0 or dtype is None or device != sys.modules["torch"]._C._cuda_getDevice():
        _refuse_torch(x, name, dtype)
    return DeviceArray(x, x.data_ptr(), x.shape, x.stride(), dtype, device, contiguous=x.is_contiguous())


def _refuse_torch(x, name, dtype):
    """The error for a tensor ktune does not take: where it is, or its dtype."""
    if not x.is_cuda:
        raise InvalidArgument(f"{name} is on the {x.device.type.upper()}: ktune takes CUDA tensors (move it with .cuda())")
    if dtype is None:
        raise TypeError(f"{name}: dtype {x.dtype} is not one ktune takes ({', '.join(sorted(SIZE))})")
    device, current = x.get_device(), sys.modules["torch"]._C._cuda_getDevice()
    raise InvalidArgument(f"{name} is on cuda:{device}, but the current device is cuda:{current}: call within "
                          f"torch.cuda.device({device})")  # ktune launches in the current device's context



def torch_tensor_type():
    """torch.Tensor once PyTorch was seen by a call (else a type nothing is)."""
    return _torch_tensor[0] or _NoTensor


class _NoTensor:
    pass


def current_device():
    """PyTorch's current device where PyTorch is loaded (tensors on others are refused), else None."""
    torch = sys.modules.get("torch")
    return torch._C._cuda_getDevice() if torch is not None and _torch_tensor[0] is not None else None


def array_facts(x, name, stream, current, keep):
    """(address, dtype, element count, contiguous) of x, checked as as_device_array checks
    x (`current`: current_device()); what must stay alive through the launch is appended
    to `keep`. A plain PyTorch tensor is read with a few attribute calls, no DLPack."""
    if type(x) is _torch_tensor[0]:
        dtype = _torch_dtypes.get(x.dtype)
        if dtype is None or x.get_device() != current:
            _refuse_torch(x, name, dtype)
        return x.data_ptr(), dtype, x.numel(), x.is_contiguous()
    a = as_device_array(x, name, stream)
    keep.append(a)
    count = 1
    for n in a.shape:
        count *= n
    return a.address, a.dtype, count, a.contiguous


def as_device_array(x, name="array", stream=None):
    """Reads a framework's array; a CPU array, an unknown dtype or a non-array is a clear
    ValueError/TypeError before anything is launched."""
    module = type(x).__module__
    if module.startswith("torch") and hasattr(x, "data_ptr"):
        return _from_torch(x, name)
    if module.startswith("cupy") and hasattr(x, "__cuda_array_interface__"):
        return _from_cai(x, name)  # CuPy's interface is a plain dict: cheap
    if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        kind, _ = x.__dlpack_device__()
        if int(kind) == _KDL_CPU:
            raise InvalidArgument(f"{name} is on the CPU: ktune takes device arrays (move it to the GPU first)")
        return _from_dlpack(x, name, stream)
    if hasattr(x, "__cuda_array_interface__"):
        return _from_cai(x, name)
    raise TypeError(f"{name}: a {type(x).__name__} is no device array (__dlpack__ or __cuda_array_interface__)")


def stream_handle(stream, like=None):
    """The CUstream to launch on: `stream` (an int, a framework stream, or anything with
    __cuda_stream__), else the current stream of `like`'s framework (PyTorch, CuPy), else 0."""
    if stream is not None:
        if isinstance(stream, bool):
            raise TypeError("stream: a bool is no CUDA stream")
        if isinstance(stream, int):
            handle = stream
        elif hasattr(stream, "__cuda_stream__"):
            handle = int(stream.__cuda_stream__()[1])
        else:
            attr = next((a for a in ("cuda_stream", "ptr", "handle") if hasattr(stream, a)), None)
            if attr is None:
                raise TypeError(f"stream: a {type(stream).__name__} is no CUDA stream")
            handle = int(getattr(stream, attr))
        if not 0 <= handle < 2**64:  # (ctypes would wrap it to another stream)
            raise InvalidArgument(f"stream: {handle} is no CUstream handle (0 .. 2^64-1)")
        return handle
    framework = type(like).__module__.split(".")[0] if like is not None else ""
    if framework == "torch":
        torch = sys.modules["torch"]
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # what Triton uses: no Stream object made
        if raw is not None:
            return int(raw(like.get_device()))
        return int(torch.cuda.current_stream().cuda_stream)
    if framework == "cupy":
        return int(sys.modules["cupy"].cuda.get_current_stream().ptr)
    return 0


def dlpack_stream(handle):
    """DLPack's name for a stream: 1 is the legacy default stream (0 is reserved)."""
    return 1 if handle == 0 else handle


def empty_like(a, shape, dtype=None):
    """A new contiguous array of `shape` in a's framework and device, of a's dtype or
    `dtype` (a ktune dtype name)."""
    if type(a.obj) is _torch_tensor[0] or a.framework == "torch":  # (new_empty: no device object made)
        return a.obj.new_empty(shape, dtype=a.obj.dtype if dtype is None else torch_dtype(dtype))
    if a.framework == "cupy":
        cupy = sys.modules["cupy"]
        kind = a.obj.dtype if dtype is None else next(k for k, v in _TYPESTR.items() if v == dtype)
        with cupy.cuda.Device(a.device):
            return cupy.empty(shape, dtype=kind)
    raise InvalidArgument(f"out=None needs a PyTorch or CuPy array to allocate like; give out= for a {a.framework} array")
