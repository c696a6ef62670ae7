"""ktune.spmv on the GPU: PyTorch sparse CSR and COO tensors (int64 indices converted)
in f32, f64, f16 and bf16 against torch.mv, in place with beta, and bad input."""
import unittest

from support import HAVE_GPU, ktune, torch


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


if __name__ == "__main__":
    unittest.main()
