"""Exception classes mirroring the library's typed errors (ktune/error.hpp)."""


class Error(Exception):
    """Any error ktune reports."""


class InvalidArgument(Error, ValueError):
    """A bad argument: a value, dtype, shape, device or description ktune refuses."""


class CudaError(Error):
    """A CUDA driver call failed; `result` is its CUresult."""

    def __init__(self, message, result=0):
        super().__init__(message)
        self.result = result


class CompileError(Error):
    """NVRTC could not compile a kernel (the message holds its log)."""


class DatabaseError(Error):
    """The tuning database could not be read or written."""


class TuningError(Error):
    """A tuning run (`ktune tune` in a child process) failed; `output` is what it printed."""

    def __init__(self, message, output=""):
        super().__init__(message)
        self.output = output
