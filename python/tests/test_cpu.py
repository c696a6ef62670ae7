"""The Python package without a GPU (CI): import, argument checks, errors, building a
Kernel from a description, the tuner's dry run from Python. Run from the repository with
the build's library: python3 -m unittest discover -s python/tests (ctest: python_test)."""
import os
import sys
import unittest
from pathlib import Path

# The package of this checkout, or with KTUNE_TEST_INSTALLED=1 the installed one (pip install .).
if not os.environ.get("KTUNE_TEST_INSTALLED"):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import ktune  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "user_kernels"


class CpuArray:
    """An array that says it is on the CPU (DLPack device type 1), as numpy's do."""

    def __dlpack__(self, stream=None):
        raise AssertionError("a CPU array must be refused before its data are read")

    def __dlpack_device__(self):
        return (1, 0)


class FakeDeviceArray:
    """A device array by __cuda_array_interface__, at an address nothing may touch."""

    def __init__(self, shape, typestr="<f4", strides=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (0x1000, False),
                                         "strides": strides, "version": 3}


class PackageTest(unittest.TestCase):
    def test_version_is_the_library_s(self):
        self.assertRegex(ktune.__version__, r"^\d+\.\d+\.\d+$")

    def test_errors_are_typed(self):
        self.assertTrue(issubclass(ktune.InvalidArgument, ValueError))
        for cls in (ktune.InvalidArgument, ktune.CudaError, ktune.CompileError, ktune.DatabaseError, ktune.TuningError):
            self.assertTrue(issubclass(cls, ktune.Error))

    @unittest.skipUnless(ktune._lib.HAS_TRANSPOSE, "built without the transpose family")
    def test_arrays_are_checked_before_anything_launches(self):
        with self.assertRaisesRegex(TypeError, "a list is no device array"):
            ktune.transpose([[1, 2]])
        with self.assertRaisesRegex(ValueError, "is on the CPU"):
            ktune.transpose(CpuArray())
        with self.assertRaisesRegex(TypeError, "dtype <c8 is not one ktune takes"):
            ktune.transpose(FakeDeviceArray((4, 4), "<c8"))
        with self.assertRaisesRegex(ValueError, "must be 2-D"):
            ktune.transpose(FakeDeviceArray((4, 4, 4)), out=FakeDeviceArray((4, 4)))
        with self.assertRaisesRegex(ValueError, "unit column stride"):
            ktune.transpose(FakeDeviceArray((4, 8), "<f4", (4, 32)), out=FakeDeviceArray((8, 4)))
        with self.assertRaisesRegex(ValueError, "out must be 8x4 f32"):
            ktune.transpose(FakeDeviceArray((4, 8)), out=FakeDeviceArray((4, 8)))
        with self.assertRaisesRegex(ValueError, "needs a PyTorch or CuPy array"):
            ktune.transpose(FakeDeviceArray((4, 8)))
        with self.assertRaisesRegex(TypeError, "is no CUDA stream"):
            ktune.transpose(FakeDeviceArray((4, 8)), out=FakeDeviceArray((8, 4)), stream="fast")

    @unittest.skipUnless(ktune._lib.HAS_GEMM, "built without the gemm family")
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

    @unittest.skipUnless(ktune._lib.HAS_REDUCE, "built without the reduction families")
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

    @unittest.skipUnless(ktune._lib.HAS_ELEMENTWISE, "built without the elementwise family")
    def test_elementwise_arguments(self):
        fma = ktune.elementwise("out = a * b + c", "f16")
        self.assertEqual((fma.inputs, fma.outputs, fma.scalars), (["a", "b", "c"], ["out"], []))
        axpy = ktune.elementwise("y = alpha * x + y", "f32", scalars=["alpha"])
        self.assertEqual((axpy.inputs, axpy.outputs, axpy.scalars), (["x", "y"], ["y"], ["alpha"]))
        with self.assertRaisesRegex(ValueError, "unexpected end of the expression"):
            ktune.elementwise("out = a +", "f32")
        with self.assertRaisesRegex(ValueError, "takes 3 inputs"):
            fma(FakeDeviceArray((8,), "<f2"), FakeDeviceArray((8,), "<f2"))
        with self.assertRaisesRegex(ValueError, "scalars: give"):
            axpy(FakeDeviceArray((8,)), FakeDeviceArray((8,)), out=FakeDeviceArray((8,)))
        with self.assertRaisesRegex(ValueError, "input b must be a contiguous f16 array of shape"):
            fma(FakeDeviceArray((8,), "<f2"), FakeDeviceArray((9,), "<f2"), FakeDeviceArray((8,), "<f2"),
                out=FakeDeviceArray((8,), "<f2"))

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
        jacobi = ktune.Kernel(Path(__file__).resolve().parents[2] / "examples" / "stencil" / "jacobi.cu", "jacobi_step")
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

    @unittest.skipUnless(ktune._lib.HAS_TRANSPOSE, "built without the transpose family")
    def test_tuning_a_family_from_python(self):
        out = ktune.tune("transpose", dtype="f32", shape=(100, 37), dry_run=True, budget_evals=3)
        self.assertIn("3 compiled for sm_90", out["output"])
        with self.assertRaises(ktune.TuningError) as e:
            ktune.tune("transpose", shape="64xx", dry_run=True)
        self.assertIn("bad --shape '64xx'", str(e.exception))


if __name__ == "__main__":
    unittest.main()
