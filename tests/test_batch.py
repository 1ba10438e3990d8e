"""run_many: the same results as single runs, bit for bit, in the order given, on any number of
workers; the first invalid scenario is the one reported."""

from __future__ import annotations

import json

import polars as pl
import pytest

import tcpstart as ts
from tcpstart.bench import small_runs


def _fingerprint(res: ts.Result) -> tuple[str, dict[str, bytes]]:
    """The summary as summary.json writes it, and every column's bytes."""
    columns = {}
    for name in ("flows", "queues"):
        table = getattr(res, name)
        for c in table.columns:
            column = table[c]
            text = column.dtype == pl.String
            columns[f"{name}.{c}"] = "\0".join(column.to_list()).encode() if text else column.to_numpy().tobytes()
    return json.dumps(res.raw_summary, indent=2), columns


def test_run_many_equals_single_runs_bit_for_bit() -> None:
    # Different seeds and RTTs, a lossy one, and more runs than one chunk per worker.
    scenarios = small_runs(24)
    scenarios[5]["network"]["loss"] = 0.01
    single = [_fingerprint(ts.run(s)) for s in scenarios]
    assert len({s[0] for s in single}) == len(scenarios)  # the runs differ, so order is checked
    for workers in (1, 2, 3, 8):
        assert [_fingerprint(r) for r in ts.run_many(scenarios, workers=workers)] == single, workers
    assert ts.run_many([], workers=2) == []


def test_run_many_reports_the_first_invalid_scenario() -> None:
    scenarios = small_runs(40)
    scenarios[17]["network"]["rate"] = "-1Mbps"
    scenarios[33]["flows"][0]["size"] = "1XB"
    for workers in (1, 2, 4):
        with pytest.raises(ts.ScenarioError, match=r"^network.rate: .*-1Mbps"):
            ts.run_many(scenarios, workers=workers)


def test_run_many_with_a_progress_bar() -> None:
    scenarios = small_runs(3)
    assert [r.raw_summary for r in ts.run_many(scenarios, workers=2, progress="runs")] == [
        ts.run(s).raw_summary for s in scenarios
    ]
