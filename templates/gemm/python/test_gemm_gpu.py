"""ktune.gemm on the GPU: the four layouts from strides in f32, bf16 and f16 against an
f32 product, alpha and beta with an f32 C, torch.compile."""
import unittest

from support import HAVE_GPU, ktune, random, torch


@unittest.skipUnless(HAVE_GPU, "no GPU (or no PyTorch)")
class GemmTest(unittest.TestCase):
    def test_layouts_from_strides(self):
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

    def test_alpha_beta_and_compile(self):
        a, b = random((200, 64), torch.bfloat16), random((64, 96), torch.bfloat16)
        c0 = random((200, 96), torch.float32)
        c = c0.clone()
        ktune.gemm(a, b, c=c, alpha=1.25, beta=-0.75, out_dtype="f32")
        want = 1.25 * (a.float() @ b.float()) - 0.75 * c0
        self.assertLess((c - want).abs().max().item(), 1e-2)
        compiled = torch.compile(lambda x, y: ktune.gemm(x, y) * 2, fullgraph=True)
        self.assertTrue(torch.allclose(compiled(a, b).float(), 2 * (a.float() @ b.float()), rtol=2e-2, atol=2e-1))


if __name__ == "__main__":
    unittest.main()
