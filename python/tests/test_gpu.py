"""The Python package on the GPU: every call on PyTorch (and CuPy, JAX where installed)
arrays against a reference, strides and offsets, streams, graph capture, threads, a
released array, tuning from Python. Skips loudly without a GPU or PyTorch."""
import os
import sys
import tempfile
import threading
import unittest
from pathlib import Path

# The package of this checkout, or with KTUNE_TEST_INSTALLED=1 the installed one (pip install .).
if not os.environ.get("KTUNE_TEST_INSTALLED"):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import ktune  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "user_kernels"

try:
    import torch
    HAVE_GPU = torch.cuda.is_available()
except ImportError:
    torch, HAVE_GPU = None, False
if not HAVE_GPU:
    print("*** ktune: SKIPPING Python GPU tests: " + ("no CUDA device" if torch else "PyTorch is not installed"),
          file=sys.stderr)


def random(shape, dtype):
    if dtype in (torch.uint8, torch.int32):
        return torch.randint(0, 100, shape, device="cuda", dtype=dtype)
    return torch.randn(shape, device="cuda").to(dtype)


@unittest.skipUnless(HAVE_GPU, "no GPU (or no PyTorch)")
class TorchTest(unittest.TestCase):
    def test_transpose_every_dtype_at_odd_shapes(self):
        for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.uint8, torch.float64):
            for shape in ((1001, 777), (64, 4097), (1, 5)):
                x = random(shape, dtype)
                y = ktune.transpose(x)
                self.assertTrue(torch.equal(y, x.t()), f"{dtype} {shape}")
                self.assertIn(ktune.last_launch()["match"], ("exact", "nearest", "same_arch", "fallback"))

    def test_pitches_are_layouts_not_copies(self):
        big = random((600, 900), torch.float32)
        x = big[100:500, 50:751]  # a slice: row pitch 900, offset
        out_big = torch.full((800, 500), -1.0, device="cuda")
        out = out_big[:701, :400]
        ktune.transpose(x, out=out)
        self.assertTrue(torch.equal(out, x.t()))
        self.assertTrue(torch.all(out_big[:701, 400:] == -1) and torch.all(out_big[701:] == -1), "wrote outside out")
        with self.assertRaisesRegex(ValueError, "unit column stride"):
            ktune.transpose(x.t())

    def test_streams(self):
        x = random((2048, 1024), torch.float32)
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):  # the current stream
            y = ktune.transpose(x)
        s.synchronize()
        self.assertTrue(torch.equal(y, x.t()))
        out = torch.empty(1024, 2048, device="cuda")
        ktune.transpose(x, out=out, stream=s)  # an explicit framework stream
        ktune.transpose(x, out=out, stream=s.cuda_stream)  # or its handle
        s.synchronize()
        self.assertTrue(torch.equal(out, x.t()))

    def test_graph_capture_after_the_first_call(self):
        x = random((512, 768), torch.float16)
        out = torch.empty(768, 512, device="cuda", dtype=torch.float16)
        ktune.transpose(x, out=out)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            with torch.cuda.graph(g, stream=s):
                ktune.transpose(x, out=out)
        x.copy_(random((512, 768), torch.float16))
        g.replay()
        torch.cuda.synchronize()
        self.assertTrue(torch.equal(out, x.t()))

    def test_threads(self):
        xs = [random((300 + i, 200 + i), torch.float32) for i in range(8)]
        outs, errors = [None] * 8, []

        def work(i):
            try:
                for _ in range(20):
                    outs[i] = ktune.transpose(xs[i])
                torch.cuda.current_stream().synchronize()
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        for x, y in zip(xs, outs):
            self.assertTrue(torch.equal(y, x.t()))

    @unittest.skipUnless(HAVE_GPU and torch.cuda.device_count() > 1, "one GPU")
    def test_a_tensor_on_another_gpu(self):
        x = random((64, 64), torch.float32).to("cuda:1")
        with self.assertRaisesRegex(ValueError, "x is on cuda:1, but the current device is cuda:0"):
            ktune.transpose(x)
        with torch.cuda.device(1):
            self.assertTrue(torch.equal(ktune.transpose(x), x.t()))

    def test_bad_input(self):
        with self.assertRaisesRegex(ValueError, "is on the CPU"):
            ktune.transpose(torch.zeros(4, 4))
        with self.assertRaisesRegex(TypeError, "is not one ktune takes"):
            ktune.transpose(torch.zeros(4, 4, device="cuda", dtype=torch.complex64))

        class Released:  # an array whose DLPack capsule was already consumed
            def __init__(self, t):
                self.capsule = t.__dlpack__()
                torch.utils.dlpack.from_dlpack(self.capsule)

            def __dlpack__(self, stream=None):
                return self.capsule

            def __dlpack_device__(self):
                return (2, 0)
        with self.assertRaisesRegex(ValueError, "already used"):
            ktune.transpose(Released(torch.zeros(4, 4, device="cuda")))

    def test_gemm_layouts_from_strides(self):
        for dtype, tol in ((torch.float32, 1e-4), (torch.bfloat16, 2e-2), (torch.float16, 5e-3)):
            m, n, k = 301, 257, 129
            for ta in (False, True):
                for tb in (False, True):
                    a = random((k, m), dtype).t() if ta else random((m, k), dtype)
                    b = random((n, k), dtype).t() if tb else random((k, n), dtype)
                    c = ktune.gemm(a, b)
                    want = a.float() @ b.float()
                    err = ((c.float() - want).abs().max() / want.abs().max()).item()
                    self.assertLess(err, tol, f"{dtype} ta={ta} tb={tb}")
        a, b = random((200, 64), torch.bfloat16), random((64, 96), torch.bfloat16)
        c0 = random((200, 96), torch.float32)
        c = c0.clone()
        ktune.gemm(a, b, c=c, alpha=1.25, beta=-0.75, out_dtype="f32")
        want = 1.25 * (a.float() @ b.float()) - 0.75 * c0
        self.assertLess((c - want).abs().max().item(), 1e-2)
        compiled = torch.compile(lambda x, y: ktune.gemm(x, y) * 2, fullgraph=True)
        self.assertTrue(torch.allclose(compiled(a, b).float(), 2 * (a.float() @ b.float()), rtol=2e-2, atol=2e-1))

    def test_reductions(self):
        for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.float64):
            x = random((1001, 777), dtype)
            wide = torch.float64 if dtype == torch.float64 else torch.float32
            ref = x.to(torch.float64)
            tol = 1e-4 if dtype in (torch.float32, torch.float64) else 1e-2
            for op, want in (("sum", ref.sum()), ("max", ref.max()), ("min", ref.min()), ("mean", ref.mean())):
                got = getattr(ktune, op)(x)
                self.assertEqual(got.dtype, wide)
                self.assertTrue(torch.allclose(got.double(), want, rtol=tol, atol=tol * 10), f"{dtype} {op}")
            for view in (x, x.t(), x[:, 5:700]):
                for dim in (0, 1):
                    got = ktune.sum(view, dim=dim)
                    want = view.to(torch.float64).sum(dim=dim)
                    self.assertTrue(torch.allclose(got.double(), want, rtol=tol, atol=tol * 50), f"{dtype} dim {dim}")
        compiled = torch.compile(lambda t: ktune.max(t, dim=1) + 1, fullgraph=True)
        x = random((300, 200), torch.float32)
        self.assertTrue(torch.equal(compiled(x), x.max(dim=1).values + 1))

    def test_elementwise(self):
        for dtype, name in ((torch.float32, "f32"), (torch.float16, "f16"), (torch.bfloat16, "bf16")):
            fma = ktune.elementwise("out = a * b + c", name)
            a, b, c = (random((1000003,), dtype) for _ in range(3))
            got = fma(a, b, c)
            want = (a.float() * b.float() + c.float()).to(dtype)
            # (ktune fuses a * b + c into one rounding; PyTorch rounds twice: near zero they differ by an ulp)
            tol = 1e-6 if dtype == torch.float32 else 1e-2
            self.assertTrue(torch.allclose(got.float(), want.float(), rtol=tol, atol=1e-5 if tol < 1e-3 else 4e-2), name)
        axpy = ktune.elementwise("y = alpha * x + y", "f32", scalars=["alpha"])
        x, y = random((4097,), torch.float32), random((4097,), torch.float32)
        y0 = y.clone()
        axpy(x, y, out=y, alpha=2.5)  # in place
        self.assertTrue(torch.allclose(y, 2.5 * x + y0, rtol=1e-6, atol=1e-5))
        fma = ktune.elementwise("out = a * b + c", "f32")
        compiled = torch.compile(lambda p, q, r: fma(p, q, r) * 2, fullgraph=True)
        a, b, c = (random((5000,), torch.float32) for _ in range(3))
        self.assertTrue(torch.allclose(compiled(a, b, c), 2 * (a * b + c), rtol=1e-6, atol=1e-5))

    def test_users_kernel_tuned_from_python_then_called(self):
        with tempfile.TemporaryDirectory() as tmp:
            db = str(Path(tmp) / "tuning.db")
            summary = ktune.tune_kernel(DATA / "scale.cu", {"n": 100003}, database=db, quiet=True)
            self.assertIn("bug=0", summary["winner"]["config"])
            k = ktune.Kernel(DATA / "scale.cu", "scale", runtime=ktune.Runtime(database=db))
            x = random((100003,), torch.float32)
            y = torch.empty_like(x)
            k(y, x, 100003, problem={"n": 100003})
            info = ktune.last_launch()
            torch.cuda.synchronize()
            self.assertTrue(torch.equal(y, 2 * x))
            self.assertEqual(info["match"], "exact")
            with self.assertRaisesRegex(ValueError, "problem variable 'n' not given"):
                k(y, x, 100003, problem={})
            with self.assertRaises(ktune.TuningError):  # a failing run: a clear error, this process unharmed
                ktune.tune_kernel(DATA / "all_wrong.cu", {"n": 5000}, database=db, quiet=True)
            self.assertTrue(torch.equal(ktune.transpose(x.view(1, -1)).view(-1), x))


@unittest.skipUnless(HAVE_GPU, "no GPU (or no PyTorch)")
class TorchCompileTest(unittest.TestCase):
    def test_fullgraph_with_transpose_and_a_users_kernel(self):
        k = ktune.Kernel(DATA / "scale.cu", "scale")

        def f(x):
            y = ktune.transpose(x)
            z = torch.empty_like(x)
            ktune.transpose(y, out=z)
            w = torch.empty(x.numel(), device=x.device)
            k(w, x.reshape(-1), x.numel(), problem={"n": x.numel()})
            return y * 2, z, w

        compiled = torch.compile(f, fullgraph=True)
        x = random((300, 200), torch.float32)
        y2, z, w = compiled(x)
        torch.cuda.synchronize()
        self.assertTrue(torch.equal(y2, 2 * x.t()))
        self.assertTrue(torch.equal(z, x))
        self.assertTrue(torch.equal(w, 2 * x.reshape(-1)))
        e2, ez, ew = f(x)  # eager: the same results
        self.assertTrue(torch.equal(e2, y2) and torch.equal(ez, z) and torch.equal(ew, w))


@unittest.skipUnless(HAVE_GPU, "no GPU")
class OtherFrameworksTest(unittest.TestCase):
    def test_cupy(self):
        try:
            import cupy
        except ImportError:
            self.skipTest("CuPy is not installed")
        x = cupy.random.standard_normal((777, 1001)).astype(cupy.float32)
        y = ktune.transpose(x)
        self.assertTrue(bool((y == x.T).all()))
        s = cupy.cuda.Stream()
        with s:
            z = ktune.transpose(x[:, 1:])
        s.synchronize()
        self.assertTrue(bool((z == x[:, 1:].T).all()))

    def test_jax(self):
        try:
            import jax
            import jax.numpy as jnp
        except ImportError:
            self.skipTest("JAX is not installed")
        if not any(d.platform == "gpu" for d in jax.devices()):
            self.skipTest("JAX sees no GPU")
        x = jnp.arange(300 * 200, dtype=jnp.float32).reshape(300, 200)
        out = torch.empty(200, 300, device="cuda")
        ktune.transpose(x, out=out)
        torch.cuda.synchronize()
        self.assertTrue(torch.equal(out.cpu(), torch.arange(300 * 200, dtype=torch.float32).view(300, 200).t()))


if __name__ == "__main__":
    unittest.main()
