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
        with self.assertRaisesRegex(ValueError, r"argument 0 \(y\) is on cuda:1, but the current device is cuda:0"):
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

    def test_the_three_bad_kernel_calls_are_refused_before_launch(self):
        k = ktune.Kernel(DATA / "scale.cu", "scale", "i32")
        good = torch.zeros(1001, device="cuda", dtype=torch.int32)
        with self.assertRaisesRegex(TypeError, r"argument 1 \(x\) is declared i32, but a f32 array was given"):
            k(good, random((1001,), torch.float32), 1001, problem={"n": 1001})
        with self.assertRaisesRegex(ValueError, "argument x holds 500 elements, but its declared size n is 1001"):
            k(good, good[:500], 1001, problem={"n": 1001})
        view = torch.zeros(11, 91, device="cuda", dtype=torch.int32).t()
        with self.assertRaisesRegex(ValueError, r"argument 1 \(x\) is not contiguous"):
            k(good, view, 1001, problem={"n": 1001})
        torch.cuda.synchronize()
        self.assertTrue(torch.equal(good, torch.zeros_like(good)), "a refused call wrote")

    def test_a_kernel_refuses_tensors_that_require_grad(self):
        k = scale()
        x = random((1000,), torch.float32).requires_grad_()
        y = torch.empty(1000, device="cuda")
        with self.assertRaisesRegex(ValueError, "requires grad, but a ktune.Kernel has no backward"):
            call(k, y, x)
        with torch.no_grad():
            call(k, y, x)
        call(k, y, x.detach())
        torch.cuda.synchronize()
        self.assertTrue(torch.equal(y, 2 * x.detach()))

    def test_first_call_of_a_kernel_inside_a_capture(self):
        k = scale()
        x = random((54321,), torch.float32)  # a size nothing called before
        y = torch.empty_like(x)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):  # torch's own side stream
            call(k, y, x)
        x.copy_(random((54321,), torch.float32))
        g.replay()
        torch.cuda.synchronize()
        self.assertTrue(torch.equal(y, 2 * x))

    def test_tuned_in_this_process_is_served_exact_at_the_next_call(self):
        k = scale()  # the default runtime and database, as a notebook has them
        x = random((77003,), torch.float32)
        y = torch.empty_like(x)
        call(k, y, x)
        self.assertNotEqual(ktune.last_launch()["match"], "exact")
        ktune.tune_kernel(DATA / "scale.cu", {"n": 77003}, quiet=True, strategy="exhaustive")
        call(k, y, x)
        self.assertEqual(ktune.last_launch()["match"], "exact")
        torch.cuda.synchronize()
        self.assertTrue(torch.equal(y, 2 * x))

    def test_records_another_process_writes_are_seen_while_calls_run(self):
        import subprocess
        import time
        with tempfile.TemporaryDirectory() as tmp:
            db = str(Path(tmp) / "tuning.db")
            k = scale(ktune.Runtime(database=db))
            x = random((65537,), torch.float32)
            y = torch.empty_like(x)
            call(k, y, x)
            self.assertNotEqual(ktune.last_launch()["match"], "exact")
            from ktune._tune import tuner
            child = subprocess.Popen([tuner(), "tune", "--kernel", str(DATA / "scale.cu"), "--problem", "n=65537",
                                      "--database", db], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            calls = 0
            while child.poll() is None:  # calls go on while the other process writes the file
                call(k, y, x)
                calls += 1
            self.assertEqual(child.returncode, 0)
            time.sleep(0.6)  # the runtime looks at the file's version at most twice a second
            call(k, y, x)
            call(k, y, x)
            self.assertEqual(ktune.last_launch()["match"], "exact", f"after {calls} calls during the tuning")
            torch.cuda.synchronize()
            self.assertTrue(torch.equal(y, 2 * x))

    def test_64_threads_each_with_its_own_streams(self):
        k = scale()
        errors = []
        xs = [random((2000 + 7 * i,), torch.float32) for i in range(64)]
        sums = [None] * 64

        def work(i):
            try:
                for _ in range(3):
                    s = torch.cuda.Stream()
                    s.wait_stream(torch.cuda.default_stream())
                    with torch.cuda.stream(s):
                        y = torch.empty_like(xs[i])
                        call(k, y, xs[i])
                        sums[i] = ktune.sum(y)
                    s.synchronize()
                    if not torch.equal(y, 2 * xs[i]):
                        errors.append(f"thread {i}: wrong result")
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(f"thread {i}: {e}")

        threads = [threading.Thread(target=work, args=(i,)) for i in range(64)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        for x, total in zip(xs, sums):
            torch.testing.assert_close(total, (2 * x).double().sum().float(), rtol=1e-5, atol=1e-3)

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


@unittest.skipUnless(HAVE_GPU, "no GPU (or no PyTorch)")
class CountersTest(unittest.TestCase):
    """ktune.counters on peers' kernels: a torch copy's DRAM bytes are the arrays', cuBLAS's
    bf16 GEMM keeps the tensor pipe busy, an exception in the work reaches the caller, a
    forced refusal is Unavailable."""

    def session(self, metrics="default"):
        import ktune.counters
        try:
            return ktune.counters.Session(metrics)
        except ktune.counters.Unavailable as e:
            self.skipTest(f"counters unavailable: {e}")

    def test_a_copy_and_a_gemm(self):
        n = 1 << 26
        x, y = torch.rand(n, device="cuda"), torch.empty(n, device="cuda")
        flush = torch.empty(1 << 27, device="cuda")
        with self.session() as s:
            self.assertTrue(s.chip and s.passes >= 1)
            v = s.collect(lambda: torch.mul(x, 2, out=y), before_pass=flush.zero_)  # a kernel (copy_ is a memcpy)
            self.assertAlmostEqual(v["dram__bytes_read.sum"] / (4 * n), 1, delta=0.05)
            self.assertAlmostEqual(v["dram__bytes_write.sum"] / (4 * n), 1, delta=0.05)
            torch.testing.assert_close(y, 2 * x)
            a, b = (torch.rand(4096, 4096, device="cuda", dtype=torch.bfloat16) for _ in range(2))
            c = torch.mm(a, b)  # cuBLAS's handle and workspace outside the collection
            v = s.collect(lambda: torch.mm(a, b, out=c))
            self.assertGreater(v["sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"], 30)
            self.assertGreater(v["gpu__time_duration.sum"], 0)

    def test_an_exception_in_the_work_reaches_the_caller(self):
        with self.session("gpu__time_duration.sum") as s:
            with self.assertRaisesRegex(ZeroDivisionError, "division"):
                s.collect(lambda: 1 / 0)
            self.assertGreater(s.collect(lambda: torch.ones(1000, device="cuda"))["gpu__time_duration.sum"], 0)

    def test_a_forced_refusal_is_unavailable(self):
        import os

        import ktune.counters
        os.environ["KTUNE_COUNTERS_REFUSED"] = "1"
        try:
            with self.assertRaisesRegex(ktune.counters.Unavailable, "ERR_NVGPUCTRPERM"):
                ktune.counters.Session()
        finally:
            del os.environ["KTUNE_COUNTERS_REFUSED"]


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
