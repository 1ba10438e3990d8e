"""ESS's "advantages increase with bandwidth and RTT" (`ess_scaling`) and the buffer sweep's
bookkeeping (`ess_buffers`), on hand-made metrics."""

from __future__ import annotations

import math

import pytest

from tcpstart.reproduce import ess_buffers, ess_scaling
from tcpstart.reproduce.report import Report, Verdict


def _metrics(paths: list[str], ess_t: list[float], other_t: list[float]) -> dict:
    m = {}
    for p, e, o in zip(paths, ess_t, other_t):
        m[(p, "ess")] = {"time_to_best_s": e, "exit_over_best": 1.05, "delivered_bytes_at": 2.0}
        m[(p, "cubic")] = {"time_to_best_s": o, "exit_over_best": 1.5, "delivered_bytes_at": 1.0}
    return m


def _grades(metrics: dict, series: dict) -> list[Verdict]:
    report = Report("t", "", "", "", quick=False)
    ess_scaling.claims(report, metrics, series, ["cubic"], str, 0.01)
    return [c.verdict for c in report.claims]


def test_growth_advantage_must_rise_at_every_step_of_every_series() -> None:
    paths = ["a", "b", "c", "d"]
    # The next fastest takes 1.2, 1.5, 2, 3 x ESS's time: rising at every step.
    rising = _metrics(paths, [1, 1, 1, 1], [1.2, 1.5, 2.0, 3.0])
    assert _grades(rising, {"rtt": paths[:2], "rate": paths[2:]})[0] is Verdict.REPRODUCED
    # One flat step (1.5 then 1.505, under the 1 % resolution) fails the claim.
    flat = _metrics(paths, [1, 1, 1, 1], [1.2, 1.5, 1.505, 3.0])
    assert _grades(flat, {"both": paths})[0] is Verdict.NOT
    # Rising, but ESS never ahead (the others always faster): not an advantage.
    behind = _metrics(paths, [1, 1, 1, 1], [0.5, 0.6, 0.7, 0.8])
    assert _grades(behind, {"both": paths})[0] is Verdict.NOT


def test_rises_reads_ratios_relatively_and_differences_absolutely() -> None:
    assert ess_scaling.rises([1.0, 1.02, 1.025], "ratio", 0.01) == [True, False]
    assert ess_scaling.rises([0.10, 0.12, 0.125], "difference", 0.01) == [True, False]


def test_buffer_settings_in_bdps_and_the_smallest_lossless_buffer() -> None:
    assert ess_buffers.buffer_bdp("0.25bdp", 40) == 0.25
    assert ess_buffers.buffer_bdp("100pkt", 40) == 2.5
    with pytest.raises(ValueError, match="NUMBERbdp or NUMBERpkt"):
        ess_buffers.buffer_bdp("1MB", 40)
    runs = {
        q: [{"path": "p", "algorithm": "ess", "losses": losses}]
        for q, losses in (("0.5bdp", 12), ("1bdp", 0), ("100pkt", 3), ("2bdp", 0))
    }
    # 100 packets on a 40-packet BDP is 2.5 BDP and loses: nothing below it counts as lossless.
    assert ess_buffers.lossless_from(runs, {"p": 40.0}) == {"p": math.inf}
    runs["100pkt"][0]["losses"] = 0
    assert ess_buffers.lossless_from(runs, {"p": 40.0}) == {"p": 1.0}
