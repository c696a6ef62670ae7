"""The built-in families' Python calls: one module per family, from its folder
(templates/<family>/python/<family>.py). An installed package has them here (the build
installs them); a checkout's package finds them in templates/."""
import importlib
import pkgutil
from pathlib import Path

_templates = Path(__file__).resolve().parents[3] / "templates"
if (_templates / "CMakeLists.txt").is_file():  # running from a checkout
    __path__ += [str(p) for p in sorted(_templates.glob("*/python")) if (p / f"{p.parent.name}.py").is_file()]


def load():
    """Each family's module, imported, in name order (a test_* or _* file is not one)."""
    names = sorted({m.name for m in pkgutil.iter_modules(__path__)
                    if not m.name.startswith(("test_", "_")) and not m.ispkg})
    return [importlib.import_module(f"{__name__}.{name}") for name in names]
