"""The package on the GPU, with a user's kernel (y = 2 x) as the call: arrays of PyTorch,
CuPy and JAX, streams, graph capture, threads, a tensor on another GPU, a released
array, torch.compile, tuning from Python. Each family's calls are tested in its folder
(templates/<family>/python/test_*_gpu.py). Skips loudly without a GPU or PyTorch.
Run: python3 python/tests/run.py gpu (ctest: python_gpu_test)."""
import tempfile
import threading
import unittest
from pathlib import Path

from support import DATA, HAVE_GPU, jax_on_gpu, ktune, random, torch


def scale(runtime=None):
    return ktune.Kernel(DATA / "scale.cu", "scale", runtime=runtime)


def call(k, y, x, **options):
    n = x.shape[0]  # 1-D arrays of any framework
    k(y, x, n, problem={"n": n}, **options)


@unittest.skipUnless(HAVE_GPU, "no GPU (or no PyTorch)")
class TorchTest(unittest.TestCase):
    def test_streams(self):
        k = scale()
        x = random((1 << 20,), torch.float32)
        y = torch.empty_like(x)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):  # the current stream
            call(k, y, x)
        s.synchronize()
        self.assertTrue(torch.equal(y, 2 * x))
        for stream in (s, s.cuda_stream):  # an explicit framework stream, or its handle
            y.zero_()
            torch.cuda.synchronize()
            call(k, y, x, stream=stream)
            s.synchronize()
            self.assertTrue(torch.equal(y, 2 * x))

    def test_graph_capture_after_the_first_call(self):
        k = scale()
        x = random((100003,), torch.float32)
        y = torch.empty_like(x)
        call(k, y, x)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            with torch.cuda.graph(g, stream=s):
                call(k, y, x)
        x.copy_(random((100003,), torch.float32))
        g.replay()
        torch.cuda.synchronize()
        self.assertTrue(torch.equal(y, 2 * x))

    def test_threads(self):
        k = scale()
        xs = [random((3000 + i,), torch.float32) for i in range(8)]
        ys = [torch.empty_like(x) for x in xs]
        errors = []

        def work(i):
            try:
                for _ in range(20):
                    call(k, ys[i], xs[i])
                torch.cuda.current_stream().synchronize()
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        for x, y in zip(xs, ys):
            self.assertTrue(torch.equal(y, 2 * x))

    @unittest.skipUnless(HAVE_GPU and torch.cuda.device_count() > 1, "one GPU")
    def test_a_tensor_on_another_gpu(self):
        k = scale()
        x = random((4096,), torch.float32).to("cuda:1")
        y = torch.empty_like(x)
        with self.assertRaisesRegex(ValueError, "argument 0 is on cuda:1, but the current device is cuda:0"):
            call(k, y, x)
        with torch.cuda.device(1):
            call(k, y, x)
            torch.cuda.synchronize()
        self.assertTrue(torch.equal(y, 2 * x))

    def test_bad_input(self):
        k = scale()
        y = torch.empty(16, device="cuda")
        with self.assertRaisesRegex(ValueError, "is on the CPU"):
            call(k, y, torch.zeros(16))
        with self.assertRaisesRegex(TypeError, "is not one ktune takes"):
            call(k, y, torch.zeros(16, device="cuda", dtype=torch.complex64))
        with self.assertRaisesRegex(ValueError, "problem variable 'n' not given"):
            k(y, y, 16, problem={})
        with self.assertRaisesRegex(ValueError, "takes 3 arguments, not 2"):
            k(y, y, problem={"n": 16})

        class Released:  # an array whose DLPack capsule was already consumed
            def __init__(self, t):
                self.capsule = t.__dlpack__()
                torch.utils.dlpack.from_dlpack(self.capsule)

            def __dlpack__(self, stream=None):
                return self.capsule

            def __dlpack_device__(self):
                return (2, 0)
        with self.assertRaisesRegex(ValueError, "already used"):
            k(y, Released(torch.zeros(16, device="cuda")), 16, problem={"n": 16})

    def test_users_kernel_tuned_from_python_then_called(self):
        with tempfile.TemporaryDirectory() as tmp:
            db = str(Path(tmp) / "tuning.db")
            summary = ktune.tune_kernel(DATA / "scale.cu", {"n": 100003}, database=db, quiet=True)
            self.assertIn("bug=0", summary["winner"]["config"])
            k = scale(ktune.Runtime(database=db))
            x = random((100003,), torch.float32)
            y = torch.empty_like(x)
            call(k, y, x)
            info = ktune.last_launch()
            torch.cuda.synchronize()
            self.assertTrue(torch.equal(y, 2 * x))
            self.assertEqual(info["match"], "exact")
            with self.assertRaises(ktune.TuningError):  # a failing run: a clear error, this process unharmed
                ktune.tune_kernel(DATA / "all_wrong.cu", {"n": 5000}, database=db, quiet=True)
            call(k, y, 3 * x)
            torch.cuda.synchronize()
            self.assertTrue(torch.equal(y, 6 * x))

    def test_torch_compile_fullgraph(self):
        k = scale()

        def f(x):
            w = torch.empty(x.numel(), device=x.device)
            k(w, x.reshape(-1), x.numel(), problem={"n": x.numel()})
            return w + 1

        compiled = torch.compile(f, fullgraph=True)
        x = random((300, 200), torch.float32)
        got = compiled(x)
        torch.cuda.synchronize()
        self.assertTrue(torch.equal(got, 2 * x.reshape(-1) + 1))
        self.assertTrue(torch.equal(f(x), got))  # eager: the same result


@unittest.skipUnless(HAVE_GPU, "no GPU")
class OtherFrameworksTest(unittest.TestCase):
    def test_cupy(self):
        try:
            import cupy
        except ImportError:
            self.skipTest("CuPy is not installed")
        k = scale()
        x = cupy.random.standard_normal((100001,)).astype(cupy.float32)
        y = cupy.empty_like(x)
        s = cupy.cuda.Stream()
        with s:  # CuPy's current stream
            call(k, y, x)
        s.synchronize()
        self.assertTrue(bool((y == 2 * x).all()))

    def test_jax(self):
        jnp = jax_on_gpu(self)
        k = scale()
        x = jnp.arange(30001, dtype=jnp.float32)
        y = torch.empty(30001, device="cuda")  # JAX arrays are immutable: the output is another framework's
        call(k, y, x)
        torch.cuda.synchronize()
        self.assertTrue(torch.equal(y.cpu(), 2 * torch.arange(30001, dtype=torch.float32)))


if __name__ == "__main__":
    unittest.main()
