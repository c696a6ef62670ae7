"""Lines per family folder (issue 68): its kernels (*.cuh), its hand-written host glue (C++
and Python outside the kernels, the tests and the benches), and its static model
(*_score.cpp, counted apart: what the family knows, not glue).
  python3 scripts/family_glue.py [FAMILY ...]"""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def lines(paths):
    return sum(p.read_text(encoding="utf-8").count("\n") for p in paths)


def count(folder):
    files = [p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    kernels = [p for p in files if p.suffix == ".cuh"]
    model = [p for p in files if p.name.endswith("_score.cpp")]
    host = [p for p in files if p.suffix in (".cpp", ".hpp", ".h", ".py") and p not in model
            and not {"tests", "bench"} & set(p.relative_to(folder).parts) and not p.name.startswith("test_")]
    return lines(kernels), lines(host), lines(model)


def main(names):
    folders = [ROOT / "templates" / n for n in names] or sorted(p for p in (ROOT / "templates").iterdir() if p.is_dir())
    print("| family | kernel lines | host glue lines | glue / kernels | model lines |\n|---|---|---|---|---|")
    for folder in folders:
        if not folder.is_dir():
            sys.exit(f"{folder}: no such family folder")
        k, g, m = count(folder)
        print(f"| {folder.name} | {k} | {g} | {g / k:.2f} | {m} |")


if __name__ == "__main__":
    main(sys.argv[1:])
