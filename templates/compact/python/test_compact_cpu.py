"""ktune.compact without a GPU: argument checks before anything launches."""
import unittest

from support import FakeDeviceArray, ktune


@unittest.skipUnless(ktune.families.compact._compact is not None, "built without the compact family")
class CompactArgumentsTest(unittest.TestCase):
    def test_compact_arguments(self):
        x = FakeDeviceArray((64,))
        with self.assertRaisesRegex(TypeError, "compaction takes"):
            ktune.compact(FakeDeviceArray((64,), "<i2"), out=FakeDeviceArray((64,), "<i2"))
        with self.assertRaisesRegex(ValueError, "must be contiguous"):
            ktune.compact(FakeDeviceArray((8, 8), "<f4", (64, 8)), out=x)  # (CAI strides: bytes)
        with self.assertRaisesRegex(ValueError, "mask must be a contiguous bool or uint8 array"):
            ktune.compact(x, FakeDeviceArray((64,), "<f4"), out=x)
        with self.assertRaisesRegex(ValueError, "needs a PyTorch or CuPy array"):
            ktune.compact(x, FakeDeviceArray((64,), "|u1"))
        with self.assertRaisesRegex(ValueError, "give mask or where, not both"):
            ktune.compact(x, FakeDeviceArray((64,), "|u1"), where="keep = x > 0", out=x)
        with self.assertRaisesRegex(ValueError, "unexpected end of the expression"):
            ktune.compact(x, where="keep = x >", out=x)
        with self.assertRaisesRegex(ValueError, "one input and one output"):
            ktune.compact(x, where="keep = a + b", out=x)
        with self.assertRaisesRegex(ValueError, "the element is named x .*'z' is not known"):
            ktune.compact(x, where="keep = z > 0", out=x)
        with self.assertRaisesRegex(ValueError, "where holds a NUL"):  # (C would cut it there)
            ktune.compact(x, where="keep = x\x00; evil", out=x)


if __name__ == "__main__":
    unittest.main()
