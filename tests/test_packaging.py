"""One installed package, dependencies pointing one way (DESIGN.md): after install only
`openlandlord` imports (the repo's distill/, export/, eval/ are openlandlord.distill/.export/
.eval); the library under openlandlord/ imports no stage, and no stage imports the CLI."""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STAGES = ("distill", "export", "eval")


@pytest.mark.parametrize("name", STAGES)
def test_only_openlandlord_is_importable_after_install(name, tmp_path):
    code = (f"import importlib.util, openlandlord.{name}\n"
            f"assert importlib.util.find_spec({name!r}) is None, 'top-level {name} importable'\n"
            f"print(openlandlord.{name}.__name__)")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"openlandlord.{name}"


def imports_of(path: Path, package: str) -> set[str]:
    """Absolute names of the modules `path` imports (relative imports resolved in `package`)."""
    tree = ast.parse(path.read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            out |= {base} | {f"{base}.{a.name}" for a in node.names}
    return out


def modules(folder: Path, package: str):
    for path in sorted(folder.rglob("*.py")):
        rel = path.relative_to(folder).with_suffix("")
        parts = list(rel.parts)
        name = ".".join([package] + parts[:-1] + ([] if parts[-1] == "__init__" else [parts[-1]]))
        yield path, name if parts[-1] == "__init__" else name.rsplit(".", 1)[0]


def test_the_library_imports_no_stage_and_no_stage_imports_the_cli():
    stage_names = tuple(f"openlandlord.{s}" for s in STAGES)
    for path, package in modules(ROOT / "openlandlord", "openlandlord"):
        if path.name == "cli.py":
            continue          # the CLI dispatches to the stages
        bad = {m for m in imports_of(path, package) if m.startswith(stage_names)}
        assert not bad, f"{path.relative_to(ROOT)} imports the stage(s) {sorted(bad)}"
    for stage in STAGES:
        for path, package in modules(ROOT / stage, f"openlandlord.{stage}"):
            bad = {m for m in imports_of(path, package) if m.startswith("openlandlord.cli")}
            assert not bad, f"{path.relative_to(ROOT)} imports the CLI"


def test_no_test_skips_when_the_project_fails_to_import_regression():
    # Regression: 8 test files importorskip'ed the project's own modules, so with the Shengji
    # extension removed the suite stayed green. A broken build must fail the suite.
    import re
    pattern = re.compile(r"importorskip\(\s*['\"](openlandlord|distill|export|eval)\b")
    offenders = [p.name for p in sorted((ROOT / "tests").glob("*.py")) if pattern.search(p.read_text())]
    assert not offenders, offenders
