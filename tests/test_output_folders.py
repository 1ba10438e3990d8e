"""Output folders: tcpstart replaces only folders it wrote, and never loses what a user put there."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

import tcpstart as ts
from conftest import SCENARIOS
from tcpstart._files import MARKER, OutputFolderError

SCENARIO = SCENARIOS / "dumbbell-newreno.toml"


def _user_folder(root: Path) -> dict[Path, str]:
    files = {root / "mydata/thesis.tex": "\\chapter{Results}", root / "mydata/sub/notes.txt": "keep me"}
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return files


def _assert_untouched(files: dict[Path, str], root: Path) -> None:
    for path, text in files.items():
        assert path.read_text() == text
    assert sorted(p.name for p in root.iterdir() if p.name.startswith(".")) == [], "temporary folders left behind"


@pytest.mark.parametrize(
    "command",
    [
        ["run", SCENARIO, "--out", "mydata"],
        ["compare", "--algos", "reno", "--out", "mydata"],
        ["reproduce", "jump-start", "--quick", "--out", "."],  # writes ./jump-start
    ],
    ids=["run", "compare", "reproduce"],
)
def test_commands_refuse_a_users_folder(cli, tmp_path: Path, command: list[object]) -> None:
    files = _user_folder(tmp_path)
    if command[0] == "reproduce":
        (tmp_path / "mydata").rename(tmp_path / "jump-start")
        files = {tmp_path / "jump-start" / p.relative_to(tmp_path / "mydata"): t for p, t in files.items()}
    status, out, err = cli(*command)
    assert status == 2
    assert err.count("\n") == 1 and "was not written by tcpstart" in err, err
    _assert_untouched(files, tmp_path)


def test_save_refuses_a_users_folder(tmp_path: Path) -> None:
    files = _user_folder(tmp_path)
    result = ts.run(SCENARIO)
    with pytest.raises(OutputFolderError, match="mydata: folder exists and was not written by tcpstart"):
        result.save(tmp_path / "mydata")
    _assert_untouched(files, tmp_path)


def test_a_result_folder_is_replaced_and_marked(cli, tmp_path: Path) -> None:
    assert cli("run", SCENARIO, "--out", "res", "--packets")[0] == 0
    assert (tmp_path / "res/packets.parquet").exists()
    status, _, err = cli("run", SCENARIO, "--out", "res")
    assert status == 0, err
    assert not (tmp_path / "res/packets.parquet").exists(), "the old result was not replaced"
    marker = json.loads((tmp_path / "res" / MARKER).read_text())
    assert sorted(marker["written"]) == sorted(p.name for p in (tmp_path / "res").iterdir() if p.name != MARKER)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res"], "temporary folders left behind"


def test_a_file_added_to_a_result_folder_is_kept(cli, tmp_path: Path) -> None:
    assert cli("run", SCENARIO, "--out", "res")[0] == 0
    (tmp_path / "res/analysis.ipynb").write_text("{}")
    status, _, err = cli("run", SCENARIO, "--out", "res")
    assert status == 2
    assert "holds analysis.ipynb, which tcpstart did not write" in err
    assert (tmp_path / "res/analysis.ipynb").read_text() == "{}"


def test_plots_belong_to_the_result_folder(cli, tmp_path: Path) -> None:
    assert cli("run", SCENARIO, "--out", "res")[0] == 0
    assert cli("plot", "res")[0] == 0
    status, _, err = cli("run", SCENARIO, "--out", "res")
    assert status == 0, err
    assert not (tmp_path / "res/cwnd.png").exists()


def test_plot_keeps_a_users_figure(cli, tmp_path: Path) -> None:
    assert cli("run", SCENARIO, "--out", "res")[0] == 0
    (tmp_path / "res/rtt.png").write_bytes(b"my own figure")
    status, _, err = cli("plot", "res")
    assert status == 2 and "rtt.png: exists and was not written by tcpstart" in err
    assert (tmp_path / "res/rtt.png").read_bytes() == b"my own figure"


def test_empty_folder_is_used_file_and_link_are_refused(tmp_path: Path) -> None:
    result = ts.run(SCENARIO)
    (tmp_path / "empty").mkdir()
    result.save(tmp_path / "empty")
    assert (tmp_path / "empty/summary.json").exists()
    (tmp_path / "a-file").write_text("data")
    with pytest.raises(OutputFolderError, match="exists and is not a folder"):
        result.save(tmp_path / "a-file")
    os.symlink(tmp_path / "empty", tmp_path / "link")
    with pytest.raises(OutputFolderError, match="symbolic link"):
        result.save(tmp_path / "link")
    assert (tmp_path / "a-file").read_text() == "data"


def test_a_damaged_marker_protects_the_folder(tmp_path: Path) -> None:
    result = ts.run(SCENARIO)
    result.save(tmp_path / "res")
    (tmp_path / "res" / MARKER).write_text("not json")
    with pytest.raises(OutputFolderError, match="was not written by tcpstart"):
        result.save(tmp_path / "res")


def test_concurrent_writers_each_land_whole(tmp_path: Path) -> None:
    results = [ts.run(ts.load_scenario(SCENARIO)), ts.run(SCENARIOS / "lossy-link.toml")]
    for r in results:  # the columns cross from the core once, before the threads share the results
        r.flows, r.queues
    errors: list[BaseException] = []

    def writer(k: int) -> None:
        try:
            for _ in range(40):
                results[k % 2].save(tmp_path / "res")
        except BaseException as e:  # noqa: BLE001 - collected and reported by the test
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res"], "temporary folders left behind"
    written = json.loads((tmp_path / "res/summary.json").read_text())
    del written["provenance"]
    assert written in (json.loads(json.dumps(r.raw_summary)) for r in results)


@pytest.mark.parametrize(
    "command",
    [["run", SCENARIO, "--out", "/proc/tcpstart-out"], ["reproduce", "all", "--out", "/proc/tcpstart-out"]],
    ids=["run", "reproduce-all"],
)
def test_an_unwritable_folder_is_refused_before_running(cli, command: list[object]) -> None:
    # /proc refuses new folders even to root, whom permission bits do not stop. Refused before the
    # first simulation: `reproduce all` would otherwise run for hours and then fail to write.
    status, out, err = cli(*command)
    assert status == 2
    assert err.count("\n") == 1 and "cannot write into /proc" in err, err
    assert out == ""
