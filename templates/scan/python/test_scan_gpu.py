"""ktune.scan on the GPU: every dtype and op, whole arrays and rows (pitched), inclusive
and exclusive, in place, against PyTorch; torch.compile."""
import unittest

from support import (HAVE_GPU, assert_captured_like_eager, assert_compiled_like_eager, assert_gradcheck, ktune, random,
                     torch)


def reference(x, op, dim, exclusive):
    wide = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    flat = x.to(wide).reshape(-1) if dim is None else x.to(wide)
    d = 0 if dim is None else -1
    if op == "sum":
        r = torch.cumsum(flat, dim=d, dtype=wide)
    else:
        r = (torch.cummax if op == "max" else torch.cummin)(flat, dim=d).values
    if exclusive:
        ident = {"sum": 0, "max": torch.iinfo(wide).min if not wide.is_floating_point else float("-inf"),
                 "min": torch.iinfo(wide).max if not wide.is_floating_point else float("inf")}[op]
        r = torch.cat([torch.full_like(r.narrow(d, 0, 1), ident), r.narrow(d, 0, r.shape[d] - 1)], dim=d)
    return r.reshape(x.shape) if dim is None else r


@unittest.skipUnless(HAVE_GPU, "no GPU (or no PyTorch)")
class ScanTest(unittest.TestCase):
    def test_whole_arrays_every_dtype_and_op(self):
        for dtype in (torch.float32, torch.float64, torch.int32, torch.int64, torch.float16, torch.bfloat16):
            x = (torch.randint(-3, 4, (1000003,), device="cuda")).to(dtype)  # small integers: exact float sums
            for op in ("sum", "max", "min"):
                for exclusive in (False, True):
                    got = ktune.scan(x, op, exclusive=exclusive)
                    self.assertTrue(torch.equal(got, reference(x, op, None, exclusive)), f"{dtype} {op} {exclusive}")

    def test_rows_pitched_and_in_place(self):
        big = torch.randint(-3, 4, (300, 5000), device="cuda").float()
        x = big[:, 7:4008]  # rows with a pitch, offset
        self.assertTrue(torch.equal(ktune.cumsum(x, dim=-1), torch.cumsum(x, dim=-1)))
        y = random((1 << 20,), torch.int32)
        want = torch.cumsum(y, dim=0, dtype=torch.int32)
        ktune.cumsum(y, out=y)  # in place
        self.assertTrue(torch.equal(y, want))
        with self.assertRaisesRegex(ValueError, "output overlaps input"):
            ktune.cumsum(big.reshape(-1)[1:1001], out=big.reshape(-1)[:1000])

    def test_cuda_graphs_on_a_fresh_stream(self):
        x = random((1 << 20,), torch.int32)
        assert_captured_like_eager(self, ktune.cumsum, lambda x: x.cumsum(0).int(), [x], tol=0)
        y = random((99991,), torch.int64)  # first call under capture
        assert_captured_like_eager(self, lambda x: ktune.scan(x, "max"), lambda x: x.cummax(0).values, [y], tol=0,
                                   eager_first=False)
        assert_compiled_like_eager(self, lambda x: ktune.cumsum(x, dim=-1) + 1, lambda x: x.cumsum(-1) + 1,
                                   lambda: [random((33, 1025), torch.int32)], tol=0)

    def test_gradients(self):
        for op in ("sum", "max", "min"):
            for exclusive in (False, True):
                for dim, shape in ((None, (301,)), (None, (7, 9)), (-1, (9, 31))):
                    def f(x):
                        y = ktune.scan(x, op, dim, exclusive=exclusive)
                        if exclusive and op != "sum":  # out[0] is -inf or inf, the identity: no derivative
                            y = y.reshape(-1)[1:] if dim is None else y[:, 1:]
                        return y
                    assert_gradcheck(self, f, shape)

    def test_torch_compile(self):
        compiled = torch.compile(lambda t: ktune.cumsum(t, dim=-1) * 2, fullgraph=True)
        x = torch.randint(-3, 4, (128, 999), device="cuda").float()
        self.assertTrue(torch.equal(compiled(x), 2 * torch.cumsum(x, dim=-1)))


if __name__ == "__main__":
    unittest.main()
