"""ktune.elementwise without a GPU: parsing the expression, argument checks."""
import os
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
        # A keyword names a scalar even where the expression was made without declaring it.
        scaled = ktune.elementwise("out = alpha * x + y", "f32")
        self.assertEqual(scaled.inputs, ["alpha", "x", "y"])
        if not os.path.exists("/dev/nvidia0"):  # (a GPU would run it on made-up addresses)
            with self.assertRaisesRegex(ktune.Error, "CUDA driver|libcuda|no usable GPU|no CUDA device"):
                scaled(FakeDeviceArray((8,)), FakeDeviceArray((8,)), alpha=2.0, out=FakeDeviceArray((8,)))
        with self.assertRaisesRegex(ValueError, r"beta: not in 'out = alpha \* x \+ y'"):
            scaled(FakeDeviceArray((8,)), FakeDeviceArray((8,)), FakeDeviceArray((8,)), beta=1.0)
        with self.assertRaisesRegex(ValueError, r"unknown dtype 'f128' \(known: .*bf16"):
            ktune.elementwise("out = a", "f128")
        self.assertEqual(ktune.elementwise("out = a * b", "f32").backward_ops()[0].outputs,
                         ["ktune_din_a", "ktune_din_b"])
        with self.assertRaisesRegex(ValueError, "expression holds a NUL"):  # (C would cut it there)
            ktune.elementwise("out = a\x00; evil", "f32")
        with self.assertRaisesRegex(ValueError, "input b must be a contiguous f16 array of shape"):
            fma(FakeDeviceArray((8,), "<f2"), FakeDeviceArray((9,), "<f2"), FakeDeviceArray((8,), "<f2"),
                out=FakeDeviceArray((8,), "<f2"))


if __name__ == "__main__":
    unittest.main()
