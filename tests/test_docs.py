"""The documentation site builds without a broken link, and its examples run."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = [ROOT / "docs/getting-started.md", ROOT / "docs/tutorial-own-algorithm.md"]


def _python_blocks(page: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", page.read_text(), re.S)


@pytest.mark.parametrize("page", EXAMPLES, ids=lambda p: p.name)
def test_examples_run(page: Path) -> None:
    blocks = _python_blocks(page)
    assert blocks, f"{page.name} has no python example"
    for i, code in enumerate(blocks):
        exec(compile(code, f"{page.name} example {i + 1}", "exec"), {})


def test_site_builds_strictly(tmp_path: Path) -> None:
    pytest.importorskip("mkdocstrings_handlers.python", reason="pip install mkdocs mkdocstrings-python")
    if shutil.which("mkdocs") is None:
        pytest.skip("mkdocs is not installed")
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    assert "tcpstart.results.Result" in (tmp_path / "site/api/index.html").read_text()
