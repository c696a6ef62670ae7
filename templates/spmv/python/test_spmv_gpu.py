"""ktune.spmv on the GPU: PyTorch sparse CSR and COO tensors (int64 indices converted)
in f32, f64, f16 and bf16 against torch.mv, in place with beta, bad input, gradients,
torch.compile and CUDA graphs."""
import unittest

from support import HAVE_GPU, assert_captured_like_eager, assert_compiled_like_eager, ktune, torch


def sparse(rows, cols, density, dtype, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    dense = torch.randn(rows, cols, device="cuda", generator=g)
    dense = dense * (torch.rand(rows, cols, device="cuda", generator=g) < density)
    dense[::97] = torch.randn(cols, device="cuda", generator=g)  # dense rows
    dense[5] = 0  # an empty row
    return dense.to(dtype)


@unittest.skipUnless(HAVE_GPU, "no GPU (or no PyTorch)")
class SpmvTest(unittest.TestCase):
    def test_products_match_torch(self):
        for dtype, tol in ((torch.float32, 1e-4), (torch.float64, 1e-10), (torch.float16, 2e-2), (torch.bfloat16, 5e-2)):
            dense = sparse(1001, 777, 0.02, dtype, 1)
            x = torch.randn(777, device="cuda").to(dtype)
            want = (dense.double() @ x.double())
            for a in (dense.to_sparse_csr(), dense.to_sparse_coo()):
                m = ktune.spmv_matrix(a)
                self.assertEqual((m.rows, m.cols, m.nnz), (1001, 777, int((dense != 0).sum())))
                got = ktune.spmv(m, x)
                self.assertEqual(got.dtype, dtype)
                scale = want.abs().max().item()
                self.assertLess((got.double() - want).abs().max().item(), tol * scale * 10, f"{dtype} {a.layout}")
            y = torch.randn(1001, device="cuda").to(dtype)
            want2 = 2 * want + 0.5 * y.double()
            out = ktune.spmv(m, x, y, alpha=2, beta=0.5)
            self.assertIs(out, y)
            self.assertLess((y.double() - want2).abs().max().item(), tol * want2.abs().max().item() * 10, str(dtype))

    def test_bad_input(self):
        m = ktune.spmv_matrix(sparse(100, 50, 0.1, torch.float32, 2).to_sparse_csr())
        with self.assertRaisesRegex(ValueError, "x must be a contiguous vector of 50 f32"):
            ktune.spmv(m, torch.zeros(49, device="cuda"))
        with self.assertRaisesRegex(ValueError, "x must be a contiguous vector of 50 f32"):
            ktune.spmv(m, torch.zeros(50, device="cuda", dtype=torch.float64))
        with self.assertRaisesRegex(ValueError, "beta != 0 reads y"):
            ktune.spmv(m, torch.zeros(50, device="cuda"), beta=1)
        with self.assertRaisesRegex(ValueError, "y must be a contiguous vector of 100 f32"):
            ktune.spmv(m, torch.zeros(50, device="cuda"), torch.zeros(100, 2, device="cuda")[:, 0])
        crow = torch.tensor([0, 2, 1, 3], dtype=torch.int32, device="cuda")  # decreasing offsets
        col = torch.tensor([0, 1, 2], dtype=torch.int32, device="cuda")
        with self.assertRaisesRegex(ValueError, "row offsets decrease at row 1"):
            ktune.spmv_matrix((crow, col, torch.ones(3, device="cuda"), (3, 3)))
        with self.assertRaisesRegex(ValueError, "is outside 0..1"):
            ktune.spmv_matrix((torch.tensor([0, 1, 2, 3], dtype=torch.int32, device="cuda"), col,
                               torch.ones(3, device="cuda"), (3, 2)))
        with self.assertRaisesRegex(TypeError, "values are i32"):
            ktune.spmv_matrix((crow, col, col, (3, 3)))
        with self.assertRaisesRegex(TypeError, "2-D sparse CSR or COO"):
            ktune.spmv_matrix(torch.zeros(3, 3, device="cuda"))

    def test_gradients(self):
        """In x and the values, against gradcheck (f64) and PyTorch's autograd through the
        dense product (f32, a power-law-like matrix: the split formats' atomics)."""
        a = sparse(61, 47, 0.1, torch.float64, 3).to_sparse_csr()
        crow, col = a.crow_indices().int(), a.col_indices().int()
        values = a.values().clone().requires_grad_(True)
        x = torch.randn(47, device="cuda", dtype=torch.float64, requires_grad=True)
        f = lambda v, x: ktune.spmv(ktune.spmv_matrix((crow, col, v, (61, 47))), x, alpha=1.5)  # noqa: E731
        self.assertTrue(torch.autograd.gradcheck(f, (values, x), eps=1e-6, atol=1e-5, rtol=1e-4))
        dense = sparse(3001, 2999, 0.01, torch.float32, 4)
        m = ktune.spmv_matrix(dense.to_sparse_csr())
        x = torch.randn(2999, device="cuda", requires_grad=True)
        g = torch.randn(3001, device="cuda")
        (ktune.spmv(m, x) * g).sum().backward()
        want = dense.t() @ g
        torch.testing.assert_close(x.grad, want, rtol=1e-4, atol=1e-4 * want.abs().max().item())
        with self.assertRaisesRegex(ValueError, "has no gradient"):
            ktune.spmv(m, x, torch.zeros(3001, device="cuda"))

    def test_torch_compile_and_graphs(self):
        dense = sparse(5003, 4001, 0.005, torch.float32, 5)
        m = ktune.spmv_matrix(dense.to_sparse_csr())
        reference = lambda x: dense @ x  # noqa: E731
        compiled = torch.compile(lambda x: ktune.spmv(m, x) * 2, fullgraph=True)
        x = torch.randn(4001, device="cuda")
        torch.testing.assert_close(compiled(x), 2 * reference(x), rtol=1e-4, atol=1e-3)
        assert_compiled_like_eager(self, lambda x: ktune.spmv(m, x) + 1, lambda x: reference(x) + 1,
                                   lambda: [torch.randn(4001, device="cuda")], tol=1e-3)
        assert_captured_like_eager(self, lambda x: ktune.spmv(m, x), reference, [torch.randn(4001, device="cuda")],
                                   tol=1e-3)
        fresh = sparse(301, 203, 0.05, torch.float32, 6).to_sparse_csr()
        parts = (fresh.crow_indices().int(), fresh.col_indices().int(), fresh.values())
        graph = torch.cuda.CUDAGraph()
        with self.assertRaisesRegex(ValueError, "graph capture cannot do"):
            with torch.cuda.graph(graph):
                ktune.spmv(ktune.spmv_matrix((*parts, (301, 203))), torch.ones(203, device="cuda"))
        self.assertEqual(int(torch.ones(3, device="cuda").sum()), 3)  # CUDA still works


if __name__ == "__main__":
    unittest.main()
