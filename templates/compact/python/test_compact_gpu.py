"""ktune.compact on the GPU: masked_select and nonzero against PyTorch at odd sizes and
fractions, every dtype."""
import unittest

from support import HAVE_GPU, ktune, random, torch


@unittest.skipUnless(HAVE_GPU, "no GPU (or no PyTorch)")
class CompactTest(unittest.TestCase):
    def test_masked_select_and_nonzero(self):
        for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int32, torch.int64, torch.uint8):
            for n, keep in ((1, 1.0), (1000003, 0.5), (300007, 0.01)):
                x = torch.randint(1, 100, (n,), device="cuda").to(dtype)
                mask = torch.rand(n, device="cuda") < keep
                self.assertTrue(torch.equal(ktune.masked_select(x, mask), torch.masked_select(x, mask)), f"{dtype} {n}")
                z = torch.where(mask, x, torch.zeros_like(x))
                self.assertTrue(torch.equal(ktune.nonzero(z), torch.nonzero(z).reshape(-1)), f"{dtype} {n}")

    def test_a_predicate(self):
        for dtype in (torch.float32, torch.int32, torch.float16):
            x = torch.randint(-7, 8, (300007,), device="cuda").to(dtype)
            values, positions, count = ktune.compact(x, where="keep = x > 0 && x < 3", indices=True)
            want = torch.nonzero((x > 0) & (x < 3)).reshape(-1)
            k = int(count[0])
            self.assertTrue(torch.equal(positions[:k], want), dtype)
            self.assertTrue(torch.equal(values[:k], x[want]), dtype)

    def test_cuda_graphs_on_a_fresh_stream(self):
        x = random((100003,), torch.float32)
        ktune.compact(x, where="keep = x > 0")  # eager first, on the current stream
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):  # PyTorch's own side stream: a workspace of the graph's
            values, count = ktune.compact(x, where="keep = x > 0")
        for _ in range(2):
            x.copy_(random((100003,), torch.float32))
            graph.replay()
            torch.cuda.synchronize()
            want = x[x > 0]
            self.assertEqual(int(count[0]), want.numel())
            self.assertTrue(torch.equal(values[: want.numel()], want))
        del graph
        with torch.cuda.graph(torch.cuda.CUDAGraph()):  # the host-synchronizing calls refuse, the capture survives
            with self.assertRaisesRegex(ValueError, "cannot do"):
                ktune.masked_select(x, x > 0)
            ktune.compact(x)
        self.assertEqual(int(torch.ones(3, device="cuda").sum()), 3)

    def test_bad_input(self):
        x = random((1000,), torch.float32)
        with self.assertRaisesRegex(ValueError, "the element is named x .*'z' is not known"):
            ktune.compact(x, where="keep = z > 0")
        with self.assertRaisesRegex(ValueError, "no gradient"):
            ktune.compact(x.requires_grad_())
        values, count = ktune.compact(torch.empty(0, device="cuda"))
        self.assertEqual((values.numel(), int(count[0])), (0, 0))

    def test_the_count_stays_on_the_device(self):
        x = torch.arange(1, 10001, device="cuda", dtype=torch.float32)
        values, count = ktune.compact(x, x > 5000)
        self.assertEqual(count.device.type, "cuda")
        self.assertEqual(int(count[0]), 5000)
        self.assertTrue(torch.equal(values[:5000], x[5000:]))


if __name__ == "__main__":
    unittest.main()
