"""Runs the package's tests of one kind: python/tests/test_<kind>.py and each family's
templates/<family>/python/test_*_<kind>.py.
  python3 python/tests/run.py cpu|gpu [FAMILY_DIR ...]   (default: every family of the checkout)
Without a GPU (or PyTorch) the gpu kind says so loudly and its tests skip."""
import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import support  # noqa: E402


def main(argv):
    if len(argv) < 1 or argv[0] not in ("cpu", "gpu"):
        sys.exit("usage: run.py cpu|gpu [FAMILY_DIR ...]")
    kind = argv[0]
    families = [Path(d) for d in argv[1:]] or sorted((support.ROOT / "templates").glob("*"))
    if kind == "gpu" and not support.HAVE_GPU:
        print(f"*** ktune: SKIPPING Python GPU tests: {support.WHY_NO_GPU}", file=sys.stderr)
    suite = unittest.TestLoader().discover(str(HERE), pattern=f"test_{kind}.py")
    for family in families:
        folder = family / "python"
        if folder.is_dir():
            suite.addTests(unittest.TestLoader().discover(str(folder), pattern=f"test_*_{kind}.py", top_level_dir=str(folder)))
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main(sys.argv[1:])
