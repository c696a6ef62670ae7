"""libktune.so's C ABI (ktune/c_api.h) through ctypes: one build serves every Python."""
import ctypes
import os
from pathlib import Path

from .errors import CompileError, CudaError, DatabaseError, Error, InvalidArgument

_HERE = Path(__file__).resolve().parent


class Arg(ctypes.Structure):
    class _Value(ctypes.Union):
        _fields_ = [("pointer", ctypes.c_uint64), ("f32", ctypes.c_float), ("f64", ctypes.c_double),
                    ("i32", ctypes.c_int32), ("i64", ctypes.c_int64)]

    _fields_ = [("kind", ctypes.c_int32), ("value", _Value)]


POINTER, F32, F64, I32, I64 = range(5)


def _candidates():
    """Where libktune.so may be: KTUNE_LIBRARY, the installed package, a build tree of the checkout."""
    if os.environ.get("KTUNE_LIBRARY"):
        yield Path(os.environ["KTUNE_LIBRARY"])
    yield _HERE / "lib" / "libktune.so"
    for build in ("build", "build-gpu"):
        yield _HERE.parent.parent / build / "runtime" / "libktune.so"


def _load():
    tried = []
    for path in _candidates():
        tried.append(str(path))
        if path.is_file():
            return ctypes.CDLL(str(path)), path
    raise ImportError("ktune: libktune.so not found; looked in: " + ", ".join(tried) +
                      " (pip install the package, or set KTUNE_LIBRARY to a build's runtime/libktune.so)")


lib, path = _load()

_sigs = {
    "ktune_c_error_kind_name": (ctypes.c_char_p, []),
    "ktune_c_error": (ctypes.c_char_p, []),
    "ktune_c_error_cuda_result": (ctypes.c_int, []),
    "ktune_c_version": (ctypes.c_char_p, []),
    "ktune_c_runtime_new": (ctypes.c_void_p, [ctypes.c_char_p, ctypes.c_int]),
    "ktune_c_runtime_free": (None, [ctypes.c_void_p]),
    "ktune_c_last_match": (ctypes.c_char_p, []),
    "ktune_c_last_config": (ctypes.c_char_p, []),
    "ktune_c_last_tuned_shape": (ctypes.c_char_p, []),
    "ktune_c_kernel_new": (ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p]),
    "ktune_c_kernel_free": (None, [ctypes.c_void_p]),
    "ktune_c_kernel_variables": (ctypes.c_char_p, [ctypes.c_void_p]),
    "ktune_c_kernel_arg_count": (ctypes.c_int, [ctypes.c_void_p]),
    "ktune_c_kernel_arg_kind": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_int]),
    "ktune_c_kernel_arg_role": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_int]),
    "ktune_c_kernel_arg_names": (ctypes.c_char_p, [ctypes.c_void_p]),
    "ktune_c_kernel_arg_dtype": (ctypes.c_char_p, [ctypes.c_void_p, ctypes.c_int]),
    "ktune_c_runtime_refresh": (ctypes.c_int, [ctypes.c_void_p]),
    "ktune_c_stream_capturing": (ctypes.c_int, [ctypes.c_uint64]),
}
for _name, (_res, _args) in _sigs.items():
    _f = getattr(lib, _name)
    _f.restype, _f.argtypes = _res, _args

# The C ABI's error kinds by name (ktune_c_error_kind_name), not by number.
_KINDS = {"invalid_argument": InvalidArgument, "compile": CompileError, "database": DatabaseError}


def check(rc):
    """Raises the thread's last error when a C call failed (rc -1 or a null handle)."""
    if rc is None or rc == -1:
        kind, message = lib.ktune_c_error_kind_name().decode(), lib.ktune_c_error().decode(errors="replace")
        if kind == "cuda":
            raise CudaError(message, lib.ktune_c_error_cuda_result())
        raise _KINDS.get(kind, Error)(message)
    return rc


def c_text(value, what):
    """value as the C ABI takes text: UTF-8 bytes, refused where it holds a NUL (C would
    end the text there and take the rest for something else)."""
    text = str(value)
    if "\0" in text:
        raise InvalidArgument(f"{what} holds a NUL character: {text!r:.120}")
    return text.encode()


def stream_capturing(stream):
    """Whether the CUstream `stream` is capturing into a CUDA graph (False where no GPU
    answers: nothing can be capturing there)."""
    return lib.ktune_c_stream_capturing(stream) == 1


def last_launch():
    return {"match": lib.ktune_c_last_match().decode(), "config": lib.ktune_c_last_config().decode(),
            "tuned_shape": lib.ktune_c_last_tuned_shape().decode()}
