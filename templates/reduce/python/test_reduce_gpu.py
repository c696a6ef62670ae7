"""ktune.sum/max/min/mean on the GPU: f32, f16, bf16 and f64 over whole arrays, rows,
columns, transposed views and slices against PyTorch in f64; torch.compile."""
import unittest

from support import (HAVE_GPU, assert_captured_like_eager, assert_compiled_like_eager, assert_gradcheck, ktune, random,
                     torch)


@unittest.skipUnless(HAVE_GPU, "no GPU (or no PyTorch)")
class ReduceTest(unittest.TestCase):
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

    def test_cuda_graphs_on_a_fresh_stream(self):
        x = random((1000003,), torch.float32)
        assert_captured_like_eager(self, ktune.sum, lambda x: x.double().sum().float(), [x], tol=1e-4)
        m = random((513, 1001), torch.float32)
        assert_captured_like_eager(self, lambda m: ktune.max(m, dim=1), lambda m: m.amax(dim=1), [m], tol=0)
        y = random((77777,), torch.float32)  # first call under capture
        assert_captured_like_eager(self, ktune.mean, lambda x: x.double().mean().float(), [y], tol=1e-5,
                                   eager_first=False)
        assert_compiled_like_eager(self, lambda x: ktune.sum(x, dim=0) * 2, lambda x: x.double().sum(0).float() * 2,
                                   lambda: [random((300, 257), torch.float32)], tol=1e-4)

    def test_a_graph_outlives_the_streams_and_workspaces_around_it(self):
        x = random((100003,), torch.float32)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            total = ktune.sum(x)
        for _ in range(300):  # streams that come and go: the eager workspaces are evicted meanwhile
            s = torch.cuda.Stream()
            with torch.cuda.stream(s):
                ktune.sum(x[:4099])
            s.synchronize()
            del s
        x.copy_(random((100003,), torch.float32))
        g.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(total, x.double().sum().float(), rtol=1e-5, atol=1e-3)

    def test_gradients(self):
        for op in ("sum", "mean", "max", "min"):
            for dim in (None, 0, 1, -1):
                assert_gradcheck(self, lambda x: getattr(ktune, op)(x, dim=dim), (17, 23))
        with self.assertRaisesRegex(ValueError, "no gradient"):
            ktune.sum(random((10,), torch.float32).requires_grad_(), out=torch.empty((), device="cuda"))

    def test_empty(self):
        self.assertEqual(float(ktune.sum(torch.empty(0, device="cuda"))), 0.0)
        self.assertEqual(tuple(ktune.sum(torch.empty(0, 4, device="cuda"), dim=0).shape), (4,))
        with self.assertRaisesRegex(ValueError, "empty"):
            ktune.max(torch.empty(0, device="cuda"))

    def test_torch_compile(self):
        compiled = torch.compile(lambda t: ktune.max(t, dim=1) + 1, fullgraph=True)
        x = random((300, 200), torch.float32)
        self.assertTrue(torch.equal(compiled(x), x.max(dim=1).values + 1))


if __name__ == "__main__":
    unittest.main()
