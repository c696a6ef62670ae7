"""ktune.gemm on the GPU: the four layouts from strides in f32, bf16 and f16 against an
f32 product, alpha and beta with an f32 C, torch.compile."""
import unittest

from support import (HAVE_GPU, assert_captured_like_eager, assert_compiled_like_eager, assert_gradcheck, ktune, random,
                     torch)


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

    def test_cuda_graphs_on_a_fresh_stream(self):
        a, b = random((129, 77), torch.bfloat16), random((77, 301), torch.bfloat16)
        assert_captured_like_eager(self, ktune.gemm, lambda a, b: (a.float() @ b.float()).bfloat16(), [a, b], tol=2e-2)
        a, b = random((67, 33), torch.float32), random((33, 45), torch.float32)  # first call under capture
        ref = lambda a, b: a.double().mm(b.double()).float()  # noqa: E731
        assert_captured_like_eager(self, ktune.gemm, ref, [a, b], tol=1e-4, eager_first=False)
        assert_compiled_like_eager(self, lambda a, b: ktune.gemm(a, b) + 1, lambda a, b: ref(a, b) + 1,
                                   lambda: [random((96, 80), torch.float32), random((80, 72), torch.float32)], tol=1e-4)

    def test_gradients(self):
        assert_gradcheck(self, ktune.gemm, (13, 7), (7, 11))
        assert_gradcheck(self, lambda a, b: ktune.gemm(a.t(), b, alpha=0.5), (7, 13), (7, 11))  # a transposed view
        assert_gradcheck(self, lambda c, a, b: ktune.addmm(c, a, b, beta=0.5, alpha=2.0), (13, 11), (13, 7), (7, 11))
        assert_gradcheck(self, lambda c, a, b: ktune.addmm(c, a, b), (11,), (13, 7), (7, 11))  # a bias row
        a = random((64, 32), torch.bfloat16).requires_grad_()
        with self.assertRaisesRegex(ValueError, "no gradient"):
            ktune.gemm(a, a.t().contiguous(), out=torch.empty(64, 64, device="cuda", dtype=torch.bfloat16))

    def test_empty_and_k0(self):
        a, b = torch.empty(0, 5, device="cuda"), torch.empty(5, 3, device="cuda")
        self.assertEqual(tuple(ktune.gemm(a, b).shape), (0, 3))
        a, b = torch.empty(4, 0, device="cuda"), torch.empty(0, 3, device="cuda")
        self.assertTrue(torch.equal(ktune.gemm(a, b), torch.zeros(4, 3, device="cuda")))

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
