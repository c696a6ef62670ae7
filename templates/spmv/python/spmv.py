"""ktune.spmv_matrix and ktune.spmv from Python: sparse matrix-vector products on a
PyTorch sparse tensor (CSR or COO), a cupyx.scipy.sparse matrix, or plain CSR arrays;
with PyTorch tensors differentiable in x and the values, and a torch.library op
(ktune::spmv) for torch.compile."""
import sys

from ktune import family
from ktune.family import C

__all__ = ["SpmvMatrix", "spmv", "spmv_matrix"]

_new = family.c_function("ktune_c_spmv_matrix_new", C.c_void_p, [C.c_void_p, C.c_uint64, C.c_uint64, C.c_uint64,
                                                                  C.c_int64, C.c_int64, C.c_int64, C.c_char_p,
                                                                  C.c_uint64])
_free = family.c_function("ktune_c_spmv_matrix_free", None, [C.c_void_p])
_key = family.c_function("ktune_c_spmv_matrix_key", C.c_int, [C.c_void_p, C.POINTER(C.c_int64)])
_spmv = family.c_function("ktune_c_spmv", C.c_int, [C.c_void_p, C.c_void_p, C.c_uint64, C.c_uint64, C.c_double,
                                                    C.c_double, C.c_uint64])
_TYPES = ("f32", "f64", "f16", "bf16")
_I32_MAX = 2**31 - 1


def _csr_parts(a):
    """(offsets, indices, values, (rows, cols)) of a sparse matrix, the index arrays as int32."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(a, torch.Tensor):
        if a.layout == torch.sparse_coo:
            a = a.coalesce().to_sparse_csr()
        if a.layout != torch.sparse_csr or a.dim() != 2:
            raise TypeError(f"a is a {a.layout} tensor of {a.dim()} dims: spmv takes a 2-D sparse CSR or COO tensor")
        if a.values().numel() > _I32_MAX:
            raise family.InvalidArgument(f"a has {a.values().numel()} nonzeros: at most 2^31 - 1 (i32 indices)")
        # Tensors of their own (copies where they would be views of the sparse tensor,
        # which torch.compile cannot trace); the values' copy keeps their gradient.
        parts = (a.crow_indices().to(torch.int32), a.col_indices().to(torch.int32), a.values().contiguous())
        return tuple(t.clone() if t._base is not None else t for t in parts) + (tuple(a.shape),)
    if all(hasattr(a, n) for n in ("indptr", "indices", "data", "shape")):  # cupyx.scipy.sparse
        if hasattr(a, "tocsr"):
            a = a.tocsr()
        if not getattr(a, "has_canonical_format", True):
            a = a.copy()
            a.sum_duplicates()
        return a.indptr.astype("int32"), a.indices.astype("int32"), a.data, tuple(a.shape)
    if isinstance(a, tuple) and len(a) == 4:
        return a
    raise TypeError(f"a is a {type(a).__name__}: spmv_matrix takes a torch sparse CSR or COO tensor, a "
                    "cupyx.scipy.sparse matrix, or (offsets, indices, values, (rows, cols))")


class SpmvMatrix:
    """A sparse matrix checked once for products (ktune.spmv_matrix): its arrays are kept
    (int32 copies of int64 indices), and `key` is what its products are tuned by: rows,
    cols, nnz, the longest row, the spread class of the row lengths (1 even .. 4 power law)."""

    def __init__(self, runtime, a, stream=None):
        family.require(_new, "spmv")
        offsets, indices, values, shape = _csr_parts(a)
        if len(shape) != 2:
            raise family.InvalidArgument(f"shape {shape}: a matrix has 2 sizes")
        s = family.stream_handle(stream, like=values)
        if s and family._lib.stream_capturing(s):
            raise family.InvalidArgument("spmv_matrix checks the matrix on the host (it synchronizes), which a CUDA "
                                         "graph capture cannot do: make the matrix (or run one product) before capturing")
        ds = family.dlpack_stream(s)
        o, i, v = (family.as_device_array(x, n, ds) for x, n in ((offsets, "offsets"), (indices, "indices"),
                                                                   (values, "values")))
        if o.dtype != "i32" or i.dtype != "i32":
            raise TypeError(f"offsets and indices must be int32, not {o.dtype} and {i.dtype}")
        if v.dtype not in _TYPES:
            raise TypeError(f"values are {v.dtype}: spmv takes {', '.join(_TYPES)}")
        for arr, name in ((o, "offsets"), (i, "indices"), (v, "values")):
            if len(arr.shape) != 1 or not arr.contiguous:
                raise family.InvalidArgument(f"{name} must be a contiguous 1-D array, not shape {arr.shape}")
        self._arrays, self._runtime, self.dtype = (offsets, indices, values), runtime, v.dtype
        self.rows, self.cols = (int(n) for n in shape)
        handle = _new(runtime._handle, o.address, i.address, v.address, self.rows, self.cols, v.shape[0],
                      family.DTYPE_NAMES[v.dtype], s)
        self._handle = family.check(handle)
        key = (C.c_int64 * 5)()
        family.check(_key(self._handle, key))
        self.key = tuple(key)
        self.nnz = self.key[2]
        self._id = family.register_callable(self)  # what the op ktune::spmv names it by
        if type(values).__module__.startswith("torch"):
            _ops.ops()  # made now, not first while torch.compile traces a product

    def __del__(self, _free=_free):
        if getattr(self, "_handle", None):
            _free(self._handle)
            self._handle = None

    def __repr__(self):
        return f"SpmvMatrix({self.rows}x{self.cols}, {self.nnz} nonzeros, {self.dtype}, key {self.key})"


def _build_ops(torch):
    # The matrix travels by its id (an op takes numbers and tensors, not objects; its
    # own arrays, checked once, are what the product reads); its tensors for autograd.
    @torch.library.custom_op("ktune::spmv", mutates_args=())
    def spmv_op(offsets: torch.Tensor, indices: torch.Tensor, values: torch.Tensor, x: torch.Tensor, matrix: int,
                rows: int, alpha: float) -> torch.Tensor:
        return _product(family.callable_by_id(matrix), x, None, alpha, 0.0, None)

    @spmv_op.register_fake
    def _(offsets, indices, values, x, matrix, rows, alpha):
        return x.new_empty((rows,))

    def setup(ctx, inputs, output):
        offsets, indices, values, x, _, ctx.rows, ctx.alpha = inputs
        ctx.save_for_backward(offsets, indices, values, x)

    def backward(ctx, grad):
        """y[r] = alpha sum_k values[k] x[indices[k]] over row r's nonzeros k: the
        gradient of values[k] is alpha g[r] x[indices[k]], of x[c] the sum of alpha g[r]
        values[k] over the nonzeros in column c (accumulated in f32, or f64). Row of each
        nonzero from the offsets without a host sync (graphs, compile)."""
        offsets, indices, values, x = ctx.saved_tensors
        acc = torch.float64 if values.dtype == torch.float64 else torch.float32
        counts = (offsets[1:] - offsets[:-1]).long()
        row = torch.repeat_interleave(torch.arange(ctx.rows, device=grad.device), counts, output_size=indices.numel())
        g = grad.to(acc)[row] * ctx.alpha
        cols = indices.long()
        gv = (g * x.to(acc)[cols]).to(values.dtype) if ctx.needs_input_grad[2] else None
        gx = None
        if ctx.needs_input_grad[3]:
            gx = torch.zeros(x.numel(), dtype=acc, device=x.device).index_add_(0, cols, g * values.to(acc)).to(x.dtype)
        return None, None, gv, gx, None, None, None

    spmv_op.register_autograd(backward, setup_context=setup)
    return spmv_op


_ops = family.TorchOps(_build_ops)


def spmv_matrix(a, *, stream=None):
    """A sparse matrix for ktune.spmv: a torch sparse CSR or COO tensor (COO is coalesced
    and converted), a cupyx.scipy.sparse matrix (duplicates summed), or (offsets, indices,
    values, (rows, cols)) device arrays. Checked once on the device (offsets and indices
    are copied to the host: it synchronizes the stream, so make it before a CUDA graph
    capture); keep the matrix for repeated products. Products are differentiable in the
    values when they are a tensor that requires grad (a tuple's values, as given)."""
    return SpmvMatrix(family.default_runtime(), a, stream)


def spmv(a, x, y=None, *, alpha=1.0, beta=0.0, stream=None):
    """y = alpha * a @ x + beta * y for a SpmvMatrix `a` (ktune.spmv_matrix) and a vector
    x of a.cols elements of a's dtype: into y (a.rows elements) in place, or a new vector
    (beta must then be 0). Returns y. A new y is differentiable in x and a's values
    (PyTorch tensors) and goes through the op ktune::spmv inside torch.compile; an
    in-place product records no gradient (refused where one is needed)."""
    if not isinstance(a, SpmvMatrix):
        raise TypeError(f"a is a {type(a).__name__}: make a SpmvMatrix once with ktune.spmv_matrix(a), then call spmv")
    offsets, indices, values = a._arrays
    if y is not None:
        family.no_grad_in_place("spmv", x, values)
    elif stream is None:
        routed = _ops.routed(x, values)
        if routed is not None and beta == 0:
            return routed(offsets, indices, values, x, a._id, a.rows, float(alpha))
    return _product(a, x, y, alpha, beta, stream)


def _product(a, x, y, alpha, beta, stream):
    s = family.stream_handle(stream, like=x)
    ds = family.dlpack_stream(s)
    xa = family.as_device_array(x, "x", ds)
    if xa.shape != (a.cols,) or xa.dtype != a.dtype or not xa.contiguous:
        raise family.InvalidArgument(f"x must be a contiguous vector of {a.cols} {a.dtype}, not shape {xa.shape} "
                                     f"{xa.dtype}")
    if y is None:
        if beta != 0:
            raise family.InvalidArgument("beta != 0 reads y: give y")
        target, ya = family.new_array(xa, (a.rows,))
    else:
        target, ya = y, family.as_device_array(y, "y", ds)
        if ya.shape != (a.rows,) or ya.dtype != a.dtype or not ya.contiguous:
            raise family.InvalidArgument(f"y must be a contiguous vector of {a.rows} {a.dtype}, not shape {ya.shape} "
                                         f"{ya.dtype}")
    family.check(_spmv(a._runtime._handle, a._handle, ya.address, xa.address, float(alpha), float(beta), s))
    return target
