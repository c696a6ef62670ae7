"""ktune.transpose without a GPU: argument checks before anything launches, tuning from Python."""
import unittest

from support import CpuArray, FakeDeviceArray, ktune

BUILT = ktune.families.transpose._transpose is not None


@unittest.skipUnless(BUILT, "built without the transpose family")
class TransposeArgumentsTest(unittest.TestCase):
    def test_arrays_are_checked_before_anything_launches(self):
        with self.assertRaisesRegex(TypeError, "a list is no device array"):
            ktune.transpose([[1, 2]])
        with self.assertRaisesRegex(ValueError, "is on the CPU"):
            ktune.transpose(CpuArray())
        with self.assertRaisesRegex(ValueError, "must be 2-D"):
            ktune.transpose(FakeDeviceArray((4, 4, 4)), out=FakeDeviceArray((4, 4)))
        with self.assertRaisesRegex(ValueError, "unit column stride"):
            ktune.transpose(FakeDeviceArray((4, 8), "<f4", (4, 32)), out=FakeDeviceArray((8, 4)))
        with self.assertRaisesRegex(ValueError, "out must be 8x4 f32"):
            ktune.transpose(FakeDeviceArray((4, 8)), out=FakeDeviceArray((4, 8)))
        with self.assertRaisesRegex(ValueError, "needs a PyTorch or CuPy array"):
            ktune.transpose(FakeDeviceArray((4, 8)))

    def test_tuning_from_python(self):
        out = ktune.tune("transpose", dtype="f32", shape=(100, 37), dry_run=True, budget_evals=3)
        self.assertIn("3 compiled for sm_90", out["output"])
        with self.assertRaises(ktune.TuningError) as e:
            ktune.tune("transpose", shape="64xx", dry_run=True)
        self.assertIn("bad --shape '64xx'", str(e.exception))


if __name__ == "__main__":
    unittest.main()
