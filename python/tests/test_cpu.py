"""The package without a GPU (CI): import, the families' modules, argument checks,
errors, building a Kernel from a description, the tuner's dry run from Python. Each
family's own tests are in its folder (templates/<family>/python/test_*_cpu.py).
Run: python3 python/tests/run.py cpu (ctest: python_cpu_test)."""
import ctypes
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from support import DATA, ROOT, CpuArray, FakeDeviceArray, ktune


class PackageTest(unittest.TestCase):
    def test_version_is_the_library_s(self):
        self.assertRegex(ktune.__version__, r"^\d+\.\d+\.\d+$")

    def test_errors_are_typed(self):
        self.assertTrue(issubclass(ktune.InvalidArgument, ValueError))
        for cls in (ktune.InvalidArgument, ktune.CudaError, ktune.CompileError, ktune.DatabaseError, ktune.TuningError):
            self.assertTrue(issubclass(cls, ktune.Error))

    def test_c_errors_arrive_typed_by_kind_name(self):
        with self.assertRaises(ktune.InvalidArgument):
            ktune.Kernel("// @kernel k\n// @entry nothing\n// @problem n\n", "nothing")
        header = Path(__file__).resolve().parents[2] / "runtime" / "include" / "ktune" / "c_api.h"
        if header.exists():  # (a checkout: the names the header documents are the ones mapped)
            line = next(ln for ln in header.read_text().splitlines() if "ktune_c_error_kind_name" not in ln
                        and '"invalid_argument"' in ln)
            names = set(re.findall(r'"([a-z_]+)"', line))
            self.assertEqual(names, set(ktune._lib._KINDS) | {"ok", "cuda", "other"})

    def test_python_signatures_match_the_c_headers(self):
        root = Path(__file__).resolve().parents[2]
        headers = [root / "runtime" / "include" / "ktune" / "c_api.h", *root.glob("templates/*/include/ktune/*_c.h")]
        if not headers[0].exists():
            self.skipTest("the C headers are in a checkout, not in the installed package")
        declared = {}
        for header in headers:
            text = re.sub(r"/\*.*?\*/", "", header.read_text(), flags=re.S)
            for ret, name, params in re.findall(r"([A-Za-z_][\w \t*]*?)\s*\b(ktune_c_\w+)\s*\(([^;{()]*)\)\s*;", text):
                params = [] if params.strip() in ("", "void") else [p.strip() for p in params.split(",")]
                declared[name] = (ret.strip(), params)

        def c_kind(text):  # a C type (with or without a parameter name) as a kind
            text = " ".join(text.replace("*", " * ").split())
            if re.fullmatch(r"(const )?char \*( \w+)?", text):
                return "text"
            if "*" in text:
                return "pointer"
            base = text.split()[0]
            return {"int": "int", "int32_t": "int", "int64_t": "i64", "uintptr_t": "u64", "uint64_t": "u64",
                    "double": "f64", "float": "f32", "void": "void"}[base]

        C = ctypes
        kinds = {C.c_int: "int", C.c_int64: "i64", C.c_uint64: "u64", C.c_double: "f64", C.c_float: "f32",
                 C.c_char_p: "text", C.c_void_p: "pointer", None: "void"}

        def py_kind(t):
            return "pointer" if isinstance(t, type) and issubclass(t, C._Pointer) else kinds[t]

        bound = dict(ktune._lib._sigs)
        bound.update(ktune.family.SIGNATURES)
        self.assertGreater(len(ktune.family.SIGNATURES), 5)
        for name, (restype, argtypes) in bound.items():
            with self.subTest(name):
                self.assertIn(name, declared, "bound in Python, declared in no header")
                ret, params = declared[name]
                self.assertEqual(py_kind(restype), c_kind(ret))
                self.assertEqual([py_kind(a) for a in argtypes], [c_kind(p) for p in params])

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
        with self.assertRaisesRegex(ValueError, r"argument 1 \(x\) is on the CPU"):
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
        with self.assertRaisesRegex(ValueError, r"argument 2 \(\w+\) = 4294967296 does not fit its i32"):
            jacobi(FakeDeviceArray((8,)), FakeDeviceArray((8,)), 2**32, 8, problem={"nx": 8, "ny": 1})
        with self.assertRaisesRegex(TypeError, r"argument 2 \(n\) is a scalar"):
            k(FakeDeviceArray((8,)), FakeDeviceArray((8,)), "8", problem={"n": 8})
        source = (DATA / "scale.cu").read_text()
        self.assertEqual(ktune.Kernel(source, "scale", "f64").variables, ["n"])

    def test_arrays_are_checked_against_the_description(self):
        """The three launches a user got through unchecked, refused on the host (no GPU
        reached): scale.cu declares y and x as T[n]."""
        k = ktune.Kernel(DATA / "scale.cu", "scale", "i32")
        self.assertEqual((k.names, k.dtypes), (["y", "x", "n"], ["i32", "i32", "i64"]))
        good = FakeDeviceArray((1001,), "<i4")
        with self.assertRaisesRegex(TypeError, r"argument 0 \(y\) is declared i32, but a f32 array was given"):
            k(FakeDeviceArray((1001,)), good, 1001, problem={"n": 1001})
        with self.assertRaisesRegex(ValueError, "argument x holds 500 elements, but its declared size n is 1001"):
            k(good, FakeDeviceArray((500,), "<i4"), 1001, problem={"n": 1001})
        view = FakeDeviceArray((7, 143), "<i4", strides=(4, 28))  # a transposed view of 143 x 7
        with self.assertRaisesRegex(ValueError, r"argument 1 \(x\) is not contiguous"):
            k(good, view, 1001, problem={"n": 1001})
        with self.assertRaisesRegex(ValueError, r"argument 2 \(n\) = 9223372036854775808 does not fit its i64"):
            k(good, good, 2**63, problem={"n": 1001})

    def test_no_gpu_is_a_clear_error(self):
        if os.path.exists("/dev/nvidia0"):
            self.skipTest("a GPU is here")
        k = ktune.Kernel(DATA / "scale.cu", "scale")
        with self.assertRaisesRegex(ktune.Error, "CUDA driver|libcuda"):
            k(FakeDeviceArray((8,)), FakeDeviceArray((8,)), 8, problem={"n": 8})

    def test_counters_names_are_checked_and_no_gpu_is_unavailable(self):
        import ktune.counters
        for metrics, message in (("dram__bytes_read.sum,,x", "an empty metric name"), ("none", "asks for no metrics"),
                                 (["Dram__bytes.sum"], "not a metric name as Nsight Compute spells them"),
                                 ("a__b.sum,a__b.sum", "given twice")):
            with self.assertRaisesRegex(ktune.InvalidArgument, message):
                ktune.counters.Session(metrics)
        if not os.path.exists("/dev/nvidia0"):
            with self.assertRaisesRegex(ktune.counters.Unavailable, "no GPU"):
                ktune.counters.Session("default")

    def test_tune_on_miss_sets_the_mode_and_refuses_others(self):
        before = os.environ.get("KTUNE_TUNE_ON_MISS")
        try:
            ktune.tune_on_miss("background")
            self.assertEqual(os.environ["KTUNE_TUNE_ON_MISS"], "background")
            ktune.tune_on_miss("now")
            self.assertEqual(os.environ["KTUNE_TUNE_ON_MISS"], "1")
            ktune.tune_on_miss("off")
            self.assertNotIn("KTUNE_TUNE_ON_MISS", os.environ)
            with self.assertRaisesRegex(ktune.InvalidArgument, "one of 'off', 'now', 'background'"):
                ktune.tune_on_miss("sometimes")
        finally:
            if before is None:
                os.environ.pop("KTUNE_TUNE_ON_MISS", None)
            else:
                os.environ["KTUNE_TUNE_ON_MISS"] = before

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


HAVE_RAY = importlib.util.find_spec("ray") is not None  # optional: ktune.cluster's tests need it
if not HAVE_RAY:
    print("*** ktune: SKIPPING the Ray tests: Ray is not installed (pip install ray)", file=sys.stderr)


@unittest.skipUnless(HAVE_RAY, "Ray is not installed (pip install ray)")
class ClusterTest(unittest.TestCase):
    """ktune.cluster.tune on a local Ray instance: one task per problem, dry runs (no GPU);
    a failing problem reported while the others finish; the tasks' databases merged."""

    @classmethod
    def tearDownClass(cls):
        import ray
        ray.shutdown()

    def test_a_workload_over_ray(self):
        import ktune.cluster
        with tempfile.TemporaryDirectory() as tmp:
            workload = os.path.join(tmp, "w.txt")
            with open(workload, "w") as f:
                f.write("reduce --dtype f32 --n 100003 --op sum\n"
                        "transpose --dtype u8 --shape 999x1001\n"
                        f"--kernel {DATA / 'scale.cu'} --problem n=1000\n"
                        f"--kernel {DATA / 'does_not_compile.cu'} --problem n=1000\n")
            report = ktune.cluster.tune(workload, dry_run=True, options=["--budget-evals", "2"], quiet=True,
                                        database=os.path.join(tmp, "tuning.db"))
            self.assertEqual(report["problems"], 4)
            self.assertEqual(report["tuned"], 3, report["failed"])
            self.assertEqual([f["line"] for f in report["failed"]], [4])
            self.assertIn("does_not_compile.cu", report["failed"][0]["command"])
            self.assertEqual(sorted(t["line"] for t in report["tasks"]), [1, 2, 3, 4])
            self.assertEqual(report["merge"], "nothing to merge")  # dry runs store no records

    def test_the_tasks_databases_are_merged(self):
        from ktune import cluster
        with tempfile.TemporaryDirectory() as tmp:
            ktune_bin = ktune._tune.tuner()
            space = subprocess.run([ktune_bin, "space", "transpose", "--shape", "64x64"], capture_output=True,
                                                 text=True, check=True).stdout.splitlines()
            cfg, hash_ = space[0], json.loads(space[-1])["template_hash"]
            dbs = []
            for i, median in enumerate((20.0, 10.0)):  # two tasks tuned one problem: the faster stays
                doc = os.path.join(tmp, f"r{i}.json")
                with open(doc, "w") as f:
                    f.write('{"ktune_schema": 3, "records": [{"device_key": "NVIDIA H200|sm_90|132sm|143771MiB|60MiB", '
                            f'"family": "transpose", "dtype": "f32", "shape": [100, 64], "align": 1, "median_us": {median}, '
                            f'"template_hash": "{hash_}", "config": {cfg}}}]}}')
                dbs.append(os.path.join(tmp, f"r{i}.db"))
                subprocess.run([ktune_bin, "cache", "import", "--database", dbs[-1], doc], check=True, capture_output=True)
            workload = os.path.join(tmp, "w.txt")
            with open(workload, "w") as f:
                f.write("transpose --dtype f32 --shape 100x64\n")
            code, text = cluster._merge(ktune_bin, os.path.join(tmp, "all.db"), workload, dbs)
            self.assertEqual(code, 0, text)
            self.assertIn("r1.db: 1 record(s): 0 added, 1 replaced", text)

    def test_bad_workload_and_options(self):
        import ktune.cluster
        with self.assertRaisesRegex(ktune.TuningError, "does not check"):
            ktune.cluster.tune(DATA / "scale.cu", dry_run=True, quiet=True)
        with self.assertRaisesRegex(ktune.InvalidArgument, "a list of words"):
            ktune.cluster.tune("w.txt", options="--budget-evals 2")
        with self.assertRaisesRegex(ktune.InvalidArgument, "gpus_per_task"):
            ktune.cluster.tune("w.txt", gpus_per_task=0)


if __name__ == "__main__":
    unittest.main()


class _Capsules:
    """Real PyCapsules around crafted DLPack structs (kept alive with the object)."""

    _new = ctypes.pythonapi.PyCapsule_New
    _new.restype, _new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]

    def __init__(self, ndim, shape=None, versioned=False, device_type=2):
        from ktune._arrays import _DLTensor
        self.shape = (ctypes.c_int64 * max(1, len(shape or ())))(*(shape or ()))
        self.tensor = _DLTensor(data=0x1000, device_type=device_type, device_id=0, ndim=ndim, code=2, bits=32, lanes=1,
                                shape=ctypes.cast(self.shape, ctypes.POINTER(ctypes.c_int64)) if shape else None,
                                strides=None, byte_offset=0)
        if versioned:  # DLManagedTensorVersioned: version, manager context, deleter, flags, then the DLTensor
            self.block = (ctypes.c_char * (32 + ctypes.sizeof(_DLTensor)))()
            ctypes.memmove(ctypes.addressof(self.block) + 32, ctypes.addressof(self.tensor), ctypes.sizeof(_DLTensor))
            self.capsule = self._new(ctypes.addressof(self.block), b"dltensor_versioned", None)
        else:
            self.capsule = self._new(ctypes.addressof(self.tensor), b"dltensor", None)

    def __dlpack__(self, stream=None):
        return self.capsule

    def __dlpack_device__(self):
        return (2, 0)


class HostileInputTest(unittest.TestCase):
    """Issue 66's Python boundary: every bad description is a clear, typed error before
    anything is read past its bounds or handed to C wrapped."""

    def test_dlpack_descriptions(self):
        from ktune.family import as_device_array
        with self.assertRaisesRegex(ValueError, "2147483647 dimensions"):
            as_device_array(_Capsules(2**31 - 1), "x")  # (it read the shape past its end before)
        with self.assertRaisesRegex(ValueError, "holds a size that is not an integer"):
            as_device_array(_Capsules(2, shape=(2**62, 2**62)), "x")
        a = as_device_array(_Capsules(1, shape=(8,), versioned=True), "x")  # DLPack 1.0
        self.assertEqual((a.shape, a.dtype, a.address), ((8,), "f32", 0x1000))

        class NoCapsule:
            def __dlpack__(self, stream=None):
                return None

            def __dlpack_device__(self):
                return (2, 0)
        with self.assertRaisesRegex(ValueError, "__dlpack__ returned a NoneType, not a DLPack capsule"):
            as_device_array(NoCapsule(), "x")

    def test_cuda_array_interface_descriptions(self):
        from ktune.family import as_device_array

        class Cai:
            def __init__(self, **cai):
                self.__cuda_array_interface__ = cai
        with self.assertRaisesRegex(ValueError, "must be a dict with 'shape', 'typestr'"):
            as_device_array(Cai(shape=(4,), data=(0x1000, False)), "x")
        with self.assertRaisesRegex(ValueError, "shape 64 is not a tuple"):
            as_device_array(Cai(shape=64, typestr="<f4", data=(0x1000, False)), "x")
        with self.assertRaisesRegex(ValueError, "2\\^62 elements or more"):
            as_device_array(Cai(shape=(2**31, 2**31), typestr="<f4", data=(0x1000, False)), "x")
        with self.assertRaisesRegex(ValueError, r"\['data'\] must be \(address, read_only\)"):
            as_device_array(Cai(shape=(4,), typestr="<f4", data=(2**70, False)), "x")

    def test_integers_that_do_not_fit_are_refused_not_wrapped(self):
        k = ktune.Kernel(DATA / "scale.cu", "scale")
        y = FakeDeviceArray((8,))
        with self.assertRaisesRegex(ValueError, "problem variable 'n' = 18446744073709552616"):
            k(y, y, 8, problem={"n": 2**64 + 1000})
        with self.assertRaisesRegex(ValueError, "stream: 1180591620717411303424 is no CUstream"):
            k(y, y, 8, problem={"n": 8}, stream=2**70)

    def test_strings_with_a_nul_are_refused(self):  # (each family's text arguments: in its folder's tests)
        with self.assertRaisesRegex(ValueError, "entry holds a NUL"):
            ktune.Kernel(DATA / "scale.cu", "scale\x00x")
        with self.assertRaisesRegex(ValueError, "database holds a NUL"):
            ktune.Runtime(database="/tmp/a\x00b.db")

    def test_tuning_arguments_cannot_smuggle_options(self):
        with self.assertRaisesRegex(ValueError, "family '--kernel=k.cu'"):
            ktune.tune("--kernel=k.cu", dry_run=True)
        with self.assertRaisesRegex(ValueError, "problem 'n': '1000,T=f64'"):
            ktune.tune_kernel(DATA / "scale.cu", {"n": "1000,T=f64"}, dry_run=True)
        with self.assertRaises(ktune.TuningError) as e:  # a value is one word: --shape=--kernel=x.cu, refused by the CLI
            ktune.tune("transpose", dtype="f32", shape="--kernel=x.cu", dry_run=True)
        self.assertIn("bad --shape '--kernel=x.cu'", str(e.exception))
        saved = os.environ.get("KTUNE_TUNER")
        os.environ["KTUNE_TUNER"] = "/nonexistent/ktune"
        try:
            with self.assertRaisesRegex(ktune.TuningError, "KTUNE_TUNER='/nonexistent/ktune': no such program"):
                ktune.tune("transpose", dtype="f32", shape=(64, 64), dry_run=True)
        finally:
            if saved is None:
                del os.environ["KTUNE_TUNER"]
            else:
                os.environ["KTUNE_TUNER"] = saved


class ArrayBoundaryFuzzTest(unittest.TestCase):
    """Random array descriptions (seeded; issue 66's fuzzing of the Python boundary): every
    one is read within its bounds or refused with ValueError/TypeError, never a crash,
    another exception, or geometry that does not fit a C int64."""

    def check(self, obj):
        from ktune.family import as_device_array
        try:
            a = as_device_array(obj, "x")
        except (ValueError, TypeError):
            return
        count = 1
        for n in a.shape:
            count *= n
        self.assertLess(count, 2**62)
        self.assertTrue(all(type(v) is int and abs(v) < 2**62 for v in a.shape + a.strides), (a.shape, a.strides))
        self.assertEqual(len(a.shape), len(a.strides))

    def test_random_descriptions(self):
        import random
        rng = random.Random(6606)
        sizes = [0, 1, 7, 2**31 - 1, 2**31, 2**62, 2**63, 2**64 + 3, -1, -2**63, 1.5, "8", None]

        def size():
            return rng.choice(sizes) if rng.random() < 0.3 else rng.randrange(0, 1000)

        class Cai:
            def __init__(self, cai):
                self.__cuda_array_interface__ = cai
        for _ in range(1500):
            ndim = rng.choice([0, 1, 2, 3, 33, 200])
            cai = {"shape": tuple(size() for _ in range(ndim)) if rng.random() < 0.9 else size(),
                   "typestr": rng.choice(["<f4", "<f2", "|u1", "<c8", "", 7, None]),
                   "data": rng.choice([(0x1000, False), (2**64, False), (-5, True), None, "x", (1, 2, 3)]),
                   "version": 3}
            if rng.random() < 0.5:
                cai["strides"] = rng.choice([None, tuple(size() for _ in range(ndim)), (4,), "s"])
            if rng.random() < 0.05:
                del cai[rng.choice(list(cai))]
            self.check(Cai(cai if rng.random() < 0.97 else rng.choice([None, 5, [1, 2]])))
        for _ in range(300):
            ndim = rng.choice([0, 1, 2, 32, 33, 2**31 - 1, -1])
            shape = [rng.choice([0, 1, 7, 2**40, 2**62, 2**63 - 1, -1]) for _ in range(min(max(ndim, 0), 40))]
            if ndim <= 40 and len(shape) < max(ndim, 0):  # never let this test itself read past a buffer
                continue
            self.check(_Capsules(ndim, shape=shape or None, versioned=rng.random() < 0.5,
                                 device_type=rng.choice([2, 2, 1, 13])))


class ClusterWorkloadWordsTest(unittest.TestCase):
    """ktune.cluster reads the tuner's `--check --json` (issue 66, item 8): file names with
    spaces, quotes or tabs stay whole (the text output split by shlex shipped a file `my`)."""

    def test_odd_file_names_stay_whole(self):
        from ktune import cluster
        from ktune._tune import tuner
        with tempfile.TemporaryDirectory() as tmp:
            names = ["my kernel.cu", "it's.cu", "tab\there.cu"]
            for name in names:
                (Path(tmp) / name).write_text((DATA / "scale.cu").read_text())
            lines = "".join(f'--kernel "{n}" --problem n=10\n' if "'" in n else f"--kernel '{n}' --problem n=10\n"
                            for n in names)
            (Path(tmp) / "w.txt").write_text(lines + "transpose --shape 64x64 --budget-evals 5\n")
            problems = cluster._problems(Path(tmp) / "w.txt", tuner())
            self.assertEqual([p[1][1] for p in problems[:3]], [str(Path(tmp) / n) for n in names])
            self.assertEqual(problems[3][1], ["transpose", "--shape", "64x64", "--budget-evals", "5"])
            words, files = cluster._files_of(problems[1][1])
            self.assertEqual((words[1], list(files)), ("file0.cu", ["file0.cu"]))
