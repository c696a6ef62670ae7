"""ktune.gemm without a GPU: argument checks before anything launches."""
import unittest

from support import FakeDeviceArray, ktune


@unittest.skipUnless(ktune.families.gemm._gemm is not None, "built without the gemm family")
class GemmArgumentsTest(unittest.TestCase):
    def test_gemm_arguments(self):
        a, b = FakeDeviceArray((64, 32)), FakeDeviceArray((32, 16))
        with self.assertRaisesRegex(ValueError, "are not m x k and k x n matrices"):
            ktune.gemm(a, FakeDeviceArray((31, 16)), out=FakeDeviceArray((64, 16)))
        with self.assertRaisesRegex(TypeError, "a is f32 and b is f16"):
            ktune.gemm(a, FakeDeviceArray((32, 16), "<f2"), out=FakeDeviceArray((64, 16)))
        with self.assertRaisesRegex(ValueError, "give c or out, not both"):
            ktune.gemm(a, b, FakeDeviceArray((64, 16)), c=FakeDeviceArray((64, 16)))
        with self.assertRaisesRegex(ValueError, "beta != 0 reads C: give c"):
            ktune.gemm(a, b, beta=0.5)
        with self.assertRaisesRegex(ValueError, "C must be 64x16 f32"):
            ktune.gemm(a, b, out=FakeDeviceArray((16, 64)))
        with self.assertRaisesRegex(ValueError, "neither row-major nor a transposed view"):
            ktune.gemm(FakeDeviceArray((64, 32), "<f4", (256, 8)), b, out=FakeDeviceArray((64, 16)))
        with self.assertRaisesRegex(ValueError, "out_dtype 'f128'"):  # (it was a bare StopIteration)
            ktune.gemm(FakeDeviceArray((4, 4)), FakeDeviceArray((4, 4)), out_dtype="f128")


if __name__ == "__main__":
    unittest.main()
