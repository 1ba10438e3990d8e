"""Runs one case in both simulators and reduces each run to the same metrics.

Metrics of a case (several flows are aggregated):
- completion: when the last flow has its last byte acknowledged, from the first SYN (finite flows);
- goodput: all acknowledged bytes x 8 over that time (over the run for long flows);
- drops and retransmissions, summed over flows;
- first loss: the earliest first congestion response of any flow (fast retransmit or timeout), as
  time from that flow's SYN, and that flow's cwnd just before it;
- the cwnd curve: the sum of the flows' cwnd over time, sampled on a common grid; the distance of
  two curves is mean |a - b| / mean((a + b) / 2) over the time both runs cover (0 = identical).
"""

from __future__ import annotations

import json
import subprocess
import time
from dataclasses import asdict, dataclass
from typing import Any, Optional

import numpy as np

from tcpstart.crosscheck.matrix import Algorithm, Case, ns3_args, tcpstart_scenario
from tcpstart.crosscheck.ns3build import build


@dataclass
class Metrics:
    completion: Optional[float]
    goodput_bps: float
    drops: int
    retransmissions: int
    fast_recoveries: int
    timeouts: int
    first_loss_time: Optional[float]
    first_loss_cwnd: Optional[int]
    wall_time: float
    # Per flow: (times from the first SYN, cwnd in bytes), step functions.
    curves: list[tuple[list[float], list[int]]]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _aggregate(case: Case, flows: list[dict[str, Any]], end: float, curves, wall: float) -> Metrics:
    starts = [f["start"] for f in flows]
    done = [f["completion_time"] for f in flows]
    completion = None
    if case.size and all(d is not None for d in done):
        completion = max(s + d for s, d in zip(starts, done)) - min(starts)
    span = completion if completion is not None else end - min(starts)
    losses = [(f["start"] + f["first_loss_time"], f["first_loss_cwnd"]) for f in flows if f["first_loss_time"] is not None]
    first = min(losses) if losses else (None, None)
    return Metrics(
        completion=completion,
        goodput_bps=sum(f["bytes_acked"] for f in flows) * 8 / span if span > 0 else 0.0,
        drops=sum(f["drops"] for f in flows),
        retransmissions=sum(f["retransmissions"] for f in flows),
        fast_recoveries=sum(f["fast_recoveries"] for f in flows),
        timeouts=sum(f["timeouts"] for f in flows),
        first_loss_time=first[0],
        first_loss_cwnd=first[1],
        wall_time=wall,
        curves=curves,
    )


def run_tcpstart(case: Case, algo: Algorithm) -> Metrics:
    from tcpstart import run

    began = time.perf_counter()
    res = run(tcpstart_scenario(case, algo))
    wall = time.perf_counter() - began
    summary = res.raw_summary["flows"]
    trace = res.flows
    flows, curves = [], []
    for f in summary:
        part = trace.filter(trace["flow"] == f["id"])
        t = part["t"].to_numpy()
        cwnd = part["cwnd"].to_numpy()
        retx = part["retransmissions"].to_numpy()
        # The first congestion response is the first sample with a retransmission; the sample
        # before it holds the window the loss was detected at.
        hit = np.flatnonzero(retx > 0)
        loss_time = loss_cwnd = None
        if hit.size:
            k = int(hit[0])
            loss_time = float(t[k] - f["start"])
            loss_cwnd = int(cwnd[k - 1]) if k > 0 else int(cwnd[k])
        flows.append({**f, "first_loss_time": loss_time, "first_loss_cwnd": loss_cwnd})
        # Curves run from the first SYN; the handshake samples carry the initial window.
        curves.append(((t - min(s["start"] for s in summary)).tolist(), cwnd.tolist()))
    return _aggregate(case, flows, res.raw_summary["sim"]["end_time"], curves, wall)


def run_ns3(case: Case, algo: Algorithm, extra: list[str] | None = None) -> Metrics:
    binary = build()
    args = [str(binary), *ns3_args(case, algo), *(extra or [])]
    began = time.perf_counter()
    proc = subprocess.run(args, capture_output=True, text=True)
    wall = time.perf_counter() - began
    if proc.returncode != 0:
        raise RuntimeError(f"ns-3 failed ({' '.join(args)}):\n{proc.stderr[-2000:]}")
    out = json.loads(proc.stdout)
    first_start = min(f["start"] for f in out["flows"])
    curves = []
    for f in out["flows"]:
        pts = f["cwnd"]
        curves.append(([p[0] + f["start"] - first_start for p in pts], [p[1] for p in pts]))
    return _aggregate(case, out["flows"], out["end_time"], curves, wall)


# ns-3's TcpBbr leaves recovery with cwnd = 2^32 - 1 (D8 in the report): no window at all. Such
# samples are undefined for the comparison (NaN) rather than four billion bytes.
UNBOUNDED = 2**31


def total_cwnd(curves, grid: np.ndarray) -> np.ndarray:
    """Sum over flows of each step-function cwnd on `grid` (0 before a flow's first sample; NaN
    where a flow's window is unbounded)."""
    total = np.zeros_like(grid)
    for t, w in curves:
        if not t:
            continue
        t = np.asarray(t)
        w = np.asarray(w, dtype=float)
        w[w >= UNBOUNDED] = np.nan
        idx = np.searchsorted(t, grid, side="right") - 1
        total += np.where(idx >= 0, w[np.clip(idx, 0, None)], 0.0)
    return total


def curve_distance(a: Metrics, b: Metrics, horizon: float, points: int = 2000) -> float:
    """Normalised L1 distance of the two total-cwnd curves over [0, horizon]."""
    grid = np.linspace(0.0, horizon, points)
    ca, cb = total_cwnd(a.curves, grid), total_cwnd(b.curves, grid)
    both = np.isfinite(ca) & np.isfinite(cb)
    ca, cb = ca[both], cb[both]
    scale = np.mean((ca + cb) / 2) if both.any() else 0.0
    return float(np.mean(np.abs(ca - cb)) / scale) if scale > 0 else 0.0


def horizon(case: Case, a: Metrics, b: Metrics) -> float:
    """The time both runs cover: up to the earlier completion, or the run's duration."""
    if a.completion is not None and b.completion is not None:
        return min(a.completion, b.completion)
    return case.duration - case.stagger * (case.flows - 1) if case.flows > 1 else case.duration


def rel(a: Optional[float], b: Optional[float]) -> Optional[float]:
    """(a - b) / b, or None when either is missing."""
    if a is None or b is None or b == 0:
        return None
    return (a - b) / b


@dataclass
class Comparison:
    case: Case
    algo: Algorithm
    tcpstart: Metrics
    ns3: Metrics

    @property
    def completion_diff(self) -> Optional[float]:
        return rel(self.tcpstart.completion, self.ns3.completion)

    @property
    def goodput_diff(self) -> Optional[float]:
        return rel(self.tcpstart.goodput_bps, self.ns3.goodput_bps)

    @property
    def cwnd_distance(self) -> float:
        return curve_distance(self.tcpstart, self.ns3, horizon(self.case, self.tcpstart, self.ns3))

    def worst(self) -> float:
        """The larger of the completion and goodput differences (absolute)."""
        return max(abs(d) for d in (self.completion_diff, self.goodput_diff) if d is not None)

    def to_json(self) -> dict[str, Any]:
        return {
            "case": asdict(self.case),
            "algorithm": asdict(self.algo),
            "tcpstart": self.tcpstart.to_json(),
            "ns3": self.ns3.to_json(),
            "completion_diff": self.completion_diff,
            "goodput_diff": self.goodput_diff,
            "cwnd_distance": self.cwnd_distance,
        }


def compare(case: Case, algo: Algorithm, ns3_cache: dict | None = None) -> Comparison:
    """Runs the case both ways. `ns3_cache` (keyed by the ns-3 arguments) lets two tcpstart
    variants checked against the same ns-3 algorithm share one ns-3 run."""
    key = tuple(ns3_args(case, algo))
    if ns3_cache is not None and key in ns3_cache:
        theirs = ns3_cache[key]
    else:
        theirs = run_ns3(case, algo)
        if ns3_cache is not None:
            ns3_cache[key] = theirs
    return Comparison(case, algo, run_tcpstart(case, algo), theirs)
