"""ktune.transpose on the GPU: every dtype at odd shapes against PyTorch, pitches and
offsets, torch.compile, CuPy and JAX arrays."""
import unittest

from support import (HAVE_GPU, assert_captured_like_eager, assert_compiled_like_eager, assert_gradcheck, jax_on_gpu,
                     ktune, random, torch)


@unittest.skipUnless(HAVE_GPU, "no GPU (or no PyTorch)")
class TransposeTest(unittest.TestCase):
    def test_every_dtype_at_odd_shapes(self):
        for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.uint8, torch.float64):
            for shape in ((1001, 777), (64, 4097), (1, 5)):
                x = random(shape, dtype)
                y = ktune.transpose(x)
                self.assertTrue(torch.equal(y, x.t()), f"{dtype} {shape}")
                self.assertIn(ktune.last_launch()["match"], ("exact", "nearest", "same_arch", "shipped", "model", "fallback"))

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

    def test_torch_compile_fullgraph(self):
        def f(x):
            y = ktune.transpose(x)
            z = torch.empty_like(x)
            ktune.transpose(y, out=z)
            return y * 2, z

        compiled = torch.compile(f, fullgraph=True)
        x = random((300, 200), torch.float32)
        y2, z = compiled(x)
        self.assertTrue(torch.equal(y2, 2 * x.t()))
        self.assertTrue(torch.equal(z, x))

    def test_cuda_graphs_on_a_fresh_stream(self):
        x = random((1001, 777), torch.float32)
        assert_captured_like_eager(self, ktune.transpose, lambda x: x.t(), [x], tol=0)
        y = random((333, 129), torch.float16)  # its first call is under capture
        assert_captured_like_eager(self, ktune.transpose, lambda x: x.t(), [y], tol=0, eager_first=False)
        assert_compiled_like_eager(self, lambda x: ktune.transpose(x) * 2, lambda x: x.t() * 2,
                                   lambda: [random((257, 1031), torch.float32)], tol=0)

    def test_gradient(self):
        assert_gradcheck(self, ktune.transpose, (37, 61))
        x = random((64, 48), torch.float32).requires_grad_()
        (ktune.transpose(x) * torch.arange(64, device="cuda")).sum().backward()  # a broadcast (strided) gradient
        self.assertTrue(torch.equal(x.grad, torch.arange(64, device="cuda", dtype=torch.float32)[:, None].expand(64, 48)))
        with self.assertRaisesRegex(ValueError, "out= .* has no gradient"):
            ktune.transpose(x, out=torch.empty(48, 64, device="cuda"))
        with self.assertRaisesRegex(ValueError, "Runtime.transpose records no gradient"):
            ktune.default_runtime().transpose(x)
        with torch.no_grad():
            self.assertTrue(torch.equal(ktune.transpose(x), x.t()))

    def test_empty(self):
        for shape in ((0, 5), (7, 0)):
            x = torch.empty(shape, device="cuda")
            self.assertEqual(tuple(ktune.transpose(x).shape), shape[::-1])

    def test_cupy(self):
        try:
            import cupy
        except ImportError:
            self.skipTest("CuPy is not installed")
        x = cupy.random.standard_normal((777, 1001)).astype(cupy.float32)
        self.assertTrue(bool((ktune.transpose(x) == x.T).all()))
        s = cupy.cuda.Stream()
        with s:
            z = ktune.transpose(x[:, 1:])
        s.synchronize()
        self.assertTrue(bool((z == x[:, 1:].T).all()))

    def test_jax(self):
        jnp = jax_on_gpu(self)
        x = jnp.arange(300 * 200, dtype=jnp.float32).reshape(300, 200)
        out = torch.empty(200, 300, device="cuda")
        ktune.transpose(x, out=out)
        torch.cuda.synchronize()
        self.assertTrue(torch.equal(out.cpu(), torch.arange(300 * 200, dtype=torch.float32).view(300, 200).t()))
        with self.assertRaisesRegex(ValueError, "give out= for a jax"):
            ktune.transpose(x)


if __name__ == "__main__":
    unittest.main()
