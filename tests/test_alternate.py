"""perf/alternate.py, the builds-alternated comparison of docs/performance.md."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import tcpstart

SCRIPT = Path(__file__).resolve().parent.parent / "perf" / "alternate.py"


def _tree(tmp_path: Path) -> Path:
    """A tree whose python/ is where the tested package (with its built core) is installed."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "python").symlink_to(Path(tcpstart.__file__).resolve().parent.parent)
    return tree


def test_compares_builds_round_by_round(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "B1", "0.1s", "2", f"a={tree}", f"b={tree}", "--json", str(tmp_path / "runs.json")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert out[0].startswith("B1 0.1s, 2 rounds, load average ")
    rows = {line.split("\t")[0]: line.split("\t")[1:] for line in out[2:]}
    assert set(rows) == {"a", "b"}
    # The first build against itself is 1 in every round; the other is some positive ratio.
    assert rows["a"][2:] == ["1.000", "1.000"]
    assert float(rows["b"][2]) > 0 and float(rows["b"][0]) > 0
    runs = (tmp_path / "runs.json").read_text()
    assert runs.count('"wall"') == 2


def test_a_tree_without_a_core_is_one_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "B1", "0.1s", "1", f"x={tmp_path}"], capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stderr.strip() == f"alternate: x: no built core in {tmp_path.resolve() / 'python' / 'tcpstart'}"
