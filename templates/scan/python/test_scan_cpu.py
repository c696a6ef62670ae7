"""ktune.scan without a GPU: argument checks before anything launches."""
import unittest

from support import FakeDeviceArray, ktune


@unittest.skipUnless(ktune.families.scan._whole is not None, "built without the scan family")
class ScanArgumentsTest(unittest.TestCase):
    def test_scan_arguments(self):
        x = FakeDeviceArray((64, 32))
        with self.assertRaisesRegex(ValueError, "op 'prod'"):
            ktune.scan(x, "prod", out=x)
        with self.assertRaisesRegex(TypeError, "scans take"):
            ktune.cumsum(FakeDeviceArray((64,), "|u1"), out=FakeDeviceArray((64,), "|u1"))
        with self.assertRaisesRegex(ValueError, "dim=None scans a contiguous array"):
            ktune.cumsum(FakeDeviceArray((64, 32), "<f4", (256, 8)), out=FakeDeviceArray((64, 32)))
        with self.assertRaisesRegex(ValueError, "dim=0: rows are scanned along the last dim"):
            ktune.cumsum(x, dim=0, out=FakeDeviceArray((64, 32)))
        with self.assertRaisesRegex(ValueError, "out must be 64x32 f32"):
            ktune.cumsum(FakeDeviceArray((64, 32), "<f2"), out=FakeDeviceArray((64, 32), "<f2"))
        with self.assertRaisesRegex(ValueError, "needs a PyTorch or CuPy array"):
            ktune.cumsum(x)

    def test_tuning_from_python(self):
        out = ktune.tune("scan_rows", dtype="f32", shape=(100, 3001), dry_run=True, budget_evals=3)
        self.assertIn("3 compiled for sm_90", out["output"])


if __name__ == "__main__":
    unittest.main()
