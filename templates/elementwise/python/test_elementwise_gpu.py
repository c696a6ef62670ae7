"""ktune.elementwise on the GPU: fma in f32, f16 and bf16 at an odd length, an axpy in
place with a scalar, torch.compile."""
import unittest

from support import HAVE_GPU, ktune, random, torch


@unittest.skipUnless(HAVE_GPU, "no GPU (or no PyTorch)")
class ElementwiseTest(unittest.TestCase):
    def test_fma_in_each_dtype(self):
        for dtype, name in ((torch.float32, "f32"), (torch.float16, "f16"), (torch.bfloat16, "bf16")):
            fma = ktune.elementwise("out = a * b + c", name)
            a, b, c = (random((1000003,), dtype) for _ in range(3))
            got = fma(a, b, c)
            want = (a.float() * b.float() + c.float()).to(dtype)
            # (ktune fuses a * b + c into one rounding; PyTorch rounds twice: near zero they differ by an ulp)
            tol = 1e-6 if dtype == torch.float32 else 1e-2
            self.assertTrue(torch.allclose(got.float(), want.float(), rtol=tol, atol=1e-5 if tol < 1e-3 else 4e-2), name)

    def test_in_place_with_a_scalar_and_compile(self):
        axpy = ktune.elementwise("y = alpha * x + y", "f32", scalars=["alpha"])
        x, y = random((4097,), torch.float32), random((4097,), torch.float32)
        y0 = y.clone()
        axpy(x, y, out=y, alpha=2.5)
        self.assertTrue(torch.allclose(y, 2.5 * x + y0, rtol=1e-6, atol=1e-5))
        fma = ktune.elementwise("out = a * b + c", "f32")
        compiled = torch.compile(lambda p, q, r: fma(p, q, r) * 2, fullgraph=True)
        a, b, c = (random((5000,), torch.float32) for _ in range(3))
        self.assertTrue(torch.allclose(compiled(a, b, c), 2 * (a * b + c), rtol=1e-6, atol=1e-5))


if __name__ == "__main__":
    unittest.main()
