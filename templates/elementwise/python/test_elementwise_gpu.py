"""ktune.elementwise on the GPU: fma in f32, f16 and bf16 at an odd length, an axpy in
place with a scalar, torch.compile."""
import unittest

from support import (HAVE_GPU, assert_captured_like_eager, assert_compiled_like_eager, assert_gradcheck, ktune, random,
                     torch)


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

    def test_cuda_graphs_on_a_fresh_stream(self):
        fma = ktune.elementwise("out = a * b + c", "f32")
        ins = [random((100003,), torch.float32) for _ in range(3)]
        assert_captured_like_eager(self, fma, lambda a, b, c: a * b + c, ins, tol=1e-6)
        odd = ktune.elementwise("out = max(a, 0) * b", "f32")  # first call under capture
        assert_captured_like_eager(self, odd, lambda a, b: a.clamp(min=0) * b, ins[:2], tol=1e-6, eager_first=False)
        assert_compiled_like_eager(self, lambda a, b, c: fma(a, b, c) * 2, lambda a, b, c: (a * b + c) * 2,
                                   lambda: [random((4099,), torch.float32) for _ in range(3)], tol=1e-5)

    def test_gradients_of_generated_backward_kernels(self):
        for text in ("out = a * b + c", "out = exp(a) * sin(b) / (1 + c * c)", "out = max(a, b) - abs(c)",
                     "out = sigmoid(a) * tanh(b) + erf(c)", "p = a * b; q = a - c"):
            op = ktune.elementwise(text, "f64")
            assert_gradcheck(self, lambda a, b, c: op(*[t for t, n in zip((a, b, c), "abc") if n in op.inputs]),
                             (301,), (301,), (301,))
        axpy = ktune.elementwise("y = alpha * x + y", "f64", scalars=["alpha"])
        assert_gradcheck(self, lambda x, y: axpy(x, y, alpha=2.5), (333,), (333,))

    def test_scalars_by_name_and_bad_input(self):
        op = ktune.elementwise("out = alpha * x + y", "f32")  # alpha not declared: a keyword makes it a scalar
        x, y = random((1000,), torch.float32), random((1000,), torch.float32)
        torch.testing.assert_close(op(x, y, alpha=2.0), 2 * x + y)
        with self.assertRaisesRegex(ValueError, "beta: not in"):
            op(x, y, alpha=2.0, beta=1.0)
        with self.assertRaisesRegex(ValueError, r"known: .*bf16"):
            ktune.elementwise("out = a", "f128")
        self.assertEqual(tuple(ktune.elementwise("out = a + b", "f32")(torch.empty(0, device="cuda"),
                                                                        torch.empty(0, device="cuda")).shape), (0,))

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
