"""What a notebook user meets: reprs, inline figures, tab completion, provenance of saved results."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import polars as pl
import pytest

import tcpstart as ts
from tcpstart import _core
from tcpstart.plot import KINDS

ROOT = Path(__file__).resolve().parent.parent
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _result() -> ts.Result:
    net = ts.Dumbbell(rate="20Mbps", rtt="200ms", queue="1bdp")
    return ts.run(ts.Scenario(network=net, flows=[ts.Flow("reno", size="1MB"), ts.Flow("jump-start", size="1MB")]))


def test_result_repr_summarises_the_run() -> None:
    text = repr(_result())
    assert text.startswith("<tcpstart.Result: 2 flows, 20Mbps, 200ms RTT, 1bdp queue")
    assert re.search(r"flow 0 reno: done in \d+\.\d{3} s, \d+\.\d\d Mbps", text), text
    assert "flow 1 jump-start" in text
    assert f"tcpstart {ts.__version__}" in text


def test_result_html_has_the_summary_table() -> None:
    page = _result()._repr_html_()
    assert "<table" in page and "jump-start" in page and "completion_time" in page


def test_figures_show_inline_without_pyplot() -> None:
    res = _result()
    for kind in KINDS:
        assert res.plot(kind)._repr_png_().startswith(PNG_MAGIC), kind


def test_tab_completion_offers_the_public_names() -> None:
    names = dir(ts)
    assert {"run", "run_many", "Scenario", "Flow", "Result", "__version__"} <= set(names)
    assert not {"importlib", "TYPE_CHECKING", "Any", "annotations"} & set(names)


def test_version_is_the_crates() -> None:
    cargo = (ROOT / "Cargo.toml").read_text()
    assert ts.__version__ == re.search(r'^version = "([^"]+)"', cargo, re.M).group(1)


def test_saved_results_carry_provenance(tmp_path: Path) -> None:
    res = _result()
    res.save(tmp_path / "res")
    saved = json.loads((tmp_path / "res/summary.json").read_text())["provenance"]
    assert saved["tcpstart"]["version"] == _core.__version__
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", saved["created"])
    meta = pl.read_parquet_metadata(tmp_path / "res/flows.parquet")
    assert json.loads(meta["tcpstart.provenance"]) == saved
    # A loaded result keeps the provenance it was saved with.
    assert ts.Result.load(tmp_path / "res").provenance == saved


def test_build_names_a_commit_of_this_repository() -> None:
    commit = json.loads(_core.__build__).get("git_commit")
    inside = subprocess.run(["git", "rev-parse", "--git-dir"], cwd=ROOT, capture_output=True).returncode == 0
    if not inside or commit is None:
        pytest.skip("the package was not built from a git checkout")
    known = subprocess.run(["git", "cat-file", "-e", f"{commit}^{{commit}}"], cwd=ROOT, capture_output=True)
    assert known.returncode == 0, f"{commit} is not a commit of this repository"
