"""ktune.sum/max/min/mean without a GPU: argument checks before anything launches."""
import unittest

from support import FakeDeviceArray, ktune


@unittest.skipUnless(ktune.families.reduce._whole is not None, "built without the reduce family")
class ReduceArgumentsTest(unittest.TestCase):
    def test_reduction_arguments(self):
        x = FakeDeviceArray((64, 32))
        with self.assertRaisesRegex(ValueError, "op 'prod'"):
            ktune.default_runtime().reduce(x, "prod")
        with self.assertRaisesRegex(TypeError, "reductions take f32, f16, bf16 or f64"):
            ktune.sum(FakeDeviceArray((64,), "<i4"), out=FakeDeviceArray(()))
        with self.assertRaisesRegex(ValueError, "is not contiguous"):
            ktune.sum(FakeDeviceArray((64, 32), "<f4", (256, 8)), out=FakeDeviceArray(()))
        with self.assertRaisesRegex(ValueError, "dim=2: x must be a matrix"):
            ktune.max(x, dim=2, out=FakeDeviceArray((64,)))
        with self.assertRaisesRegex(ValueError, r"out must be a contiguous f32 array of shape \(64,\)"):
            ktune.mean(x, dim=1, out=FakeDeviceArray((32,)))
        with self.assertRaisesRegex(ValueError, "needs a PyTorch or CuPy array"):
            ktune.min(x, dim=0)


if __name__ == "__main__":
    unittest.main()
