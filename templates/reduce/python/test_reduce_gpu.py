"""ktune.sum/max/min/mean on the GPU: f32, f16, bf16 and f64 over whole arrays, rows,
columns, transposed views and slices against PyTorch in f64; torch.compile."""
import unittest

from support import HAVE_GPU, ktune, random, torch


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

    def test_torch_compile(self):
        compiled = torch.compile(lambda t: ktune.max(t, dim=1) + 1, fullgraph=True)
        x = random((300, 200), torch.float32)
        self.assertTrue(torch.equal(compiled(x), x.max(dim=1).values + 1))


if __name__ == "__main__":
    unittest.main()
