"""ktune.spmv without a GPU: argument checks before anything launches."""
import unittest

from support import FakeDeviceArray, ktune


@unittest.skipUnless(ktune.families.spmv._new is not None, "built without the spmv family")
class SpmvArgumentsTest(unittest.TestCase):
    def test_arguments(self):
        with self.assertRaisesRegex(TypeError, "make a SpmvMatrix once with ktune.spmv_matrix"):
            ktune.spmv(FakeDeviceArray((8, 8)), FakeDeviceArray((8,)))
        with self.assertRaisesRegex(TypeError, "spmv_matrix takes a torch sparse CSR or COO tensor"):
            ktune.spmv_matrix([1, 2, 3])

    def test_tuning_from_python(self):
        out = ktune.tune("spmv", rows=10000, nnz=300000, max_row=3000, spread=4, dry_run=True, budget_evals=3)
        self.assertIn("3 compiled for sm_90", out["output"])


if __name__ == "__main__":
    unittest.main()
