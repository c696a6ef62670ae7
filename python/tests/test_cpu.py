"""The package without a GPU (CI): import, the families' modules, argument checks,
errors, building a Kernel from a description, the tuner's dry run from Python. Each
family's own tests are in its folder (templates/<family>/python/test_*_cpu.py).
Run: python3 python/tests/run.py cpu (ctest: python_cpu_test)."""
import os
import unittest

from support import DATA, ROOT, CpuArray, FakeDeviceArray, ktune


class PackageTest(unittest.TestCase):
    def test_version_is_the_library_s(self):
        self.assertRegex(ktune.__version__, r"^\d+\.\d+\.\d+$")

    def test_errors_are_typed(self):
        self.assertTrue(issubclass(ktune.InvalidArgument, ValueError))
        for cls in (ktune.InvalidArgument, ktune.CudaError, ktune.CompileError, ktune.DatabaseError, ktune.TuningError):
            self.assertTrue(issubclass(cls, ktune.Error))

    def test_each_family_folder_s_module_is_loaded_and_exported(self):
        modules = ktune.families.load()
        if not os.environ.get("KTUNE_TEST_INSTALLED"):  # a checkout: every folder with a python/<family>.py
            want = sorted(p.parent.name for p in (ROOT / "templates").glob("*/python") if (p / f"{p.parent.name}.py").exists())
            self.assertEqual([m.__name__.rsplit(".", 1)[1] for m in modules], want)
        self.assertTrue(modules, "no family module found")
        for module in modules:
            for name in module.__all__:
                self.assertIs(getattr(ktune, name), getattr(module, name), f"{module.__name__}.{name}")
                self.assertIn(name, ktune.__all__)

    def test_arrays_are_checked_before_anything_launches(self):
        k = ktune.Kernel(DATA / "scale.cu", "scale")
        y = FakeDeviceArray((8,))
        with self.assertRaisesRegex(TypeError, "a list is no device array"):
            k(y, [1, 2], 8, problem={"n": 8})
        with self.assertRaisesRegex(ValueError, "argument 1 is on the CPU"):
            k(y, CpuArray(), 8, problem={"n": 8})
        with self.assertRaisesRegex(TypeError, "dtype <c8 is not one ktune takes"):
            k(y, FakeDeviceArray((8,), "<c8"), 8, problem={"n": 8})
        with self.assertRaisesRegex(TypeError, "is no CUDA stream"):
            k(y, y, 8, problem={"n": 8}, stream="fast")

    def test_kernel_from_a_description(self):
        k = ktune.Kernel(DATA / "scale.cu", "scale")
        self.assertEqual(k.variables, ["n"])
        self.assertEqual(k.kinds, [0, 0, 4])  # y, x: pointers; n: i64
        with self.assertRaisesRegex(ValueError, "its @entry is 'scale', not 'nope'"):
            ktune.Kernel(DATA / "scale.cu", "nope")
        with self.assertRaisesRegex(ValueError, "cannot read kernel file"):
            ktune.Kernel(DATA / "missing.cu", "scale")
        with self.assertRaisesRegex(ValueError, "takes 3 arguments, not 2"):
            k(FakeDeviceArray((8,)), FakeDeviceArray((8,)), problem={"n": 8})
        jacobi = ktune.Kernel(ROOT / "examples" / "stencil" / "jacobi.cu", "jacobi_step")
        with self.assertRaisesRegex(ValueError, "argument 2 = 4294967296 does not fit its i32"):
            jacobi(FakeDeviceArray((8,)), FakeDeviceArray((8,)), 2**32, 8, problem={"nx": 8, "ny": 1})
        with self.assertRaisesRegex(TypeError, "argument 2 is a scalar"):
            k(FakeDeviceArray((8,)), FakeDeviceArray((8,)), "8", problem={"n": 8})
        source = (DATA / "scale.cu").read_text()
        self.assertEqual(ktune.Kernel(source, "scale", "f64").variables, ["n"])

    def test_no_gpu_is_a_clear_error(self):
        if os.path.exists("/dev/nvidia0"):
            self.skipTest("a GPU is here")
        k = ktune.Kernel(DATA / "scale.cu", "scale")
        with self.assertRaisesRegex(ktune.Error, "CUDA driver|libcuda"):
            k(FakeDeviceArray((8,)), FakeDeviceArray((8,)), 8, problem={"n": 8})

    def test_tuning_from_python(self):
        out = ktune.tune_kernel(DATA / "scale.cu", {"n": 1000, "T": "i32"}, dry_run=True)
        self.assertIn("9 compiled for sm_90", out["output"])
        with self.assertRaises(ktune.TuningError) as e:
            ktune.tune_kernel(DATA / "scale.cu", {"n": 0}, dry_run=True)
        self.assertIn("a problem variable is an integer from 1 to 2^31-1", str(e.exception))
        with self.assertRaisesRegex(ValueError, "a dict of the kernel's problem variables"):
            ktune.tune_kernel(DATA / "scale.cu", [1000])
        with self.assertRaises(ktune.TuningError) as e:
            ktune.tune("no_such_family", dry_run=True)
        self.assertIn("no_such_family", str(e.exception))


if __name__ == "__main__":
    unittest.main()
