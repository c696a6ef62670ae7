"""ktune.elementwise without a GPU: parsing the expression, argument checks."""
import unittest

from support import FakeDeviceArray, ktune


@unittest.skipUnless(ktune.families.elementwise._new is not None, "built without the elementwise family")
class ElementwiseArgumentsTest(unittest.TestCase):
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


if __name__ == "__main__":
    unittest.main()
