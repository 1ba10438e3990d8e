"""`tcpstart benchmark`: start-up algorithms on the path presets, ranked (docs/benchmark.md).

Every algorithm on every path preset (the `[network]` table of `scenarios/path-*.toml`), for
each transfer size, in two settings: alone on the path, and starting while an established
CUBIC flow fills it. Replications shift the transfer's start by a fraction of the base RTT each
(a path that changes over time then meets it in another phase). Scores:

- completion time over the ideal (alone: 2 base RTTs + size / rate; against CUBIC: 2 base RTTs
  + size / half the rate, its fair share); a transfer unfinished when the run ends counts with
  the time it had, a lower bound;
- loss: the transfer's own drop rate, alone;
- delay added: the bottleneck's 95th-percentile queueing delay, alone;
- harm to the CUBIC flow (Ware et al., HotNets 2019): the fraction of the throughput it has in
  the transfer's lifetime without the transfer that it loses with it.

A cell (path, algorithm, size) holds the median over replications; the leaderboard the
geometric mean of the completion ratios and the mean of the rest over the cells, ranked by the
completion ratio alone.
"""

from __future__ import annotations

import csv
import functools
import html
import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

import polars as pl

from tcpstart.benchmark_figures import write_figures
from tcpstart.results import Result
from tcpstart.scenario import ScenarioError, expanded, read_scenario_file
from tcpstart.sweep.measure import measure_groups

ALGORITHMS = ("newreno", "cubic", "cubic-nohystart", "cubic+hystartpp", "cubic+suss", "bbr", "jump-start")
SIZES = ("10KB", "100KB", "1MB", "10MB")
REPLICATIONS = 3
QUICK = {"paths": ("path-geo-satellite", "path-cellular-trace"), "algos": ("cubic", "cubic+suss"), "sizes": ("100KB",), "replications": 1}
# Base RTTs the CUBIC flow runs before the transfer starts (at least WARMUP_MIN_S): long enough to
# leave slow start on every preset.
WARMUP_RTTS = 20
WARMUP_MIN_S = 0.2
TRACE_INTERVAL = "10ms"
# Receivers as Linux's: quick ACKs for the first 16 segments and delayed ACKs of at most 40 ms
# (TCP_DELACK_MIN), unless the preset's [tcp] says otherwise. With the simulator's defaults (no
# quick ACKs, 200 ms) the last ACK of a small transfer waits 200 ms, which would be most of its
# completion time on every path.
RECEIVER = {"quickack": 16, "delack_timeout": "40ms"}


@dataclass(frozen=True)
class Path_:
    name: str
    network: dict[str, Any] = field(hash=False, compare=False)
    tcp: dict[str, Any] = field(hash=False, compare=False)
    rate_bps: float = 0.0
    rtt_s: float = 0.0


def load_paths(folder: Path, names: Optional[Sequence[str]] = None) -> list[Path_]:
    """The presets `folder/path-*.toml` (or those named), each as its [network] table."""
    files = sorted(folder.glob("path-*.toml"))
    if names:
        wanted = {n if n.startswith("path-") else f"path-{n}" for n in names}
        unknown = wanted - {f.stem for f in files}
        if unknown:
            raise ScenarioError(f"--paths: no preset {sorted(unknown)[0]} in {folder}; there are {', '.join(f.stem for f in files)}")
        files = [f for f in files if f.stem in wanted]
    if not files:
        raise ScenarioError(f"--scenarios: no path-*.toml in {folder}")
    paths = []
    for f in files:
        preset = read_scenario_file(f)
        net, tcp = preset["network"], {**RECEIVER, **preset.get("tcp", {})}
        # The core's reading of the numbers: the bottleneck's rate and the path's base RTT.
        resolved = expanded({"network": net, "tcp": tcp, "flows": [{"size": "1KB"}]})
        seconds = lambda d: d["secs"] + d["nanos"] / 1e9  # noqa: E731
        rtt = 2 * (seconds(resolved["network"]["delay"]) + 2 * seconds(resolved["flows"][0]["access_delay"]))
        paths.append(Path_(f.stem.removeprefix("path-"), net, tcp, resolved["network"]["rate_bps"], rtt))
    return paths


@functools.lru_cache(maxsize=None)
def size_bytes(size: str) -> int:
    """A transfer size as the core reads it (\"100KB\" is 100 000 bytes)."""
    try:
        return expanded({"network": {"rate": "1Mbps", "rtt": "10ms"}, "flows": [{"size": size}]})["flows"][0]["size"]
    except ScenarioError as e:
        raise ScenarioError(f"--sizes: {str(e).removeprefix('flows[0].size: ')}") from None


def _flow(algo: str, size: str, start: float) -> dict[str, Any]:
    return {"algorithm": algo, "size": size, "start": f"{start!r}s"}


def _ideal(path: Path_, size: str, share: float) -> float:
    return 2 * path.rtt_s + size_bytes(size) * 8 / (path.rate_bps * share)


def _competing_duration(path: Path_, size: str, warmup: float) -> float:
    """Long enough for the transfer at a tenth of its fair share, plus 20 RTTs."""
    return warmup + 10 * _ideal(path, size, 0.5) + 20 * path.rtt_s


@dataclass(frozen=True)
class Case:
    path: Path_
    algo: Optional[str]  # None: the CUBIC flow alone, the harm baseline
    size: str
    rep: int
    competing: bool

    def scenario(self, replications: int) -> dict[str, Any]:
        offset = self.path.rtt_s * self.rep / replications
        s: dict[str, Any] = {
            "seed": self.rep + 1,
            "network": self.path.network,
            "tcp": self.path.tcp,
            "trace": {"interval": TRACE_INTERVAL, "queue_interval": TRACE_INTERVAL},
        }
        if not self.competing:
            s["flows"] = [_flow(self.algo or "cubic", self.size, offset)]
            return s
        warmup = max(WARMUP_MIN_S, WARMUP_RTTS * self.path.rtt_s)
        s["duration"] = f"{_competing_duration(self.path, self.size, warmup)!r}s"
        s["flows"] = [{"algorithm": "cubic"}]
        if self.algo is not None:
            s["flows"].append(_flow(self.algo, self.size, warmup + offset))
        return s


def _delivered_at(res: Result, flow: int, t: float) -> float:
    f = res.flows
    rows = f.filter((f["flow"] == flow) & (f["t"] <= t))["delivered"]
    return float(rows[-1]) if len(rows) else 0.0


def _since(res: Result, flow: int, start: float, end: float) -> tuple[list[float], list[float]]:
    """The flow's delivered bytes since `start`, at `start` and at every sample up to `end`: the
    series whose last value `_measure` takes for harm."""
    f = res.flows
    rows = f.filter((f["flow"] == flow) & (f["t"] > start) & (f["t"] <= end))
    base = _delivered_at(res, flow, start)
    return [start, *rows["t"].to_list()], [0.0, *(d - base for d in rows["delivered"].to_list())]


def _bottleneck_delay(res: Result, start: float, end: float) -> tuple[list[float], list[float]]:
    """The bottleneck's queueing delay (ms) from `start` to `end`: the queue series (the last
    packet's sojourn, on its grid) as a step function, which holds between rows; 0 before the
    first (a link without rows never queued)."""
    q = res.queues.filter(pl.col("link") == "bottleneck")
    before = q.filter(pl.col("t") <= start)["sojourn"]
    rows = q.filter((pl.col("t") > start) & (pl.col("t") <= end))
    ms = [1e3 * v for v in [before[-1] if len(before) else 0.0, *rows["sojourn"].to_list()]]
    return [start, *rows["t"].to_list(), end], [*ms, ms[-1]]


def _series(case: Case, row: dict[str, Any], res: Result, baseline: Optional[Result]) -> dict[str, Any]:
    """What the figures draw of one run (benchmark_figures.py): alone, the bottleneck's delay
    while the transfer ran; against CUBIC, the CUBIC flow's delivered bytes over the transfer's
    lifetime with and without it."""
    start = res.raw_summary["flows"][1 if case.competing else 0]["start"]
    end = start + row["completion_s"]
    if not case.competing:
        return {"delay": _bottleneck_delay(res, start, end)}
    assert baseline is not None
    return {"with": _since(res, 0, start, end), "without": _since(baseline, 0, start, end)}


def _measure(case: Case, res: Result, baseline: Optional[Result]) -> dict[str, Any]:
    s = res.raw_summary
    row: dict[str, Any] = {"path": case.path.name, "algorithm": case.algo, "size": case.size, "replication": case.rep, "competing": case.competing}
    flow = s["flows"][1 if case.competing else 0]
    fct = flow["completion_time"]
    row["finished"] = fct is not None
    row["completion_s"] = fct if fct is not None else s["sim"]["end_time"] - flow["start"]
    row["completion_ratio"] = row["completion_s"] / _ideal(case.path, case.size, 0.5 if case.competing else 1.0)
    row["loss"] = flow["drop_rate"]
    bottleneck = next(link for link in s["links"] if link["name"] == "bottleneck")
    row["delay_p95_ms"] = bottleneck["sojourn"]["p95"] * 1e3
    if case.competing and baseline is not None:
        start = flow["start"]
        end = start + row["completion_s"]
        without = _delivered_at(baseline, 0, end) - _delivered_at(baseline, 0, start)
        with_ = _delivered_at(res, 0, end) - _delivered_at(res, 0, start)
        row["harm"] = max(0.0, (without - with_) / without) if without > 0 else 0.0
    return row


def _measure_group(cases: tuple[Case, ...], results: list[Result]) -> list[tuple[dict[str, Any], Optional[dict[str, Any]]]]:
    """Each case's row and, for replication 0, its series: `results` are the cases' runs, then
    their harm baseline (the CUBIC flow alone) as the last."""
    baseline = results[-1]
    measured = []
    for case, res in zip(cases, results):
        base = baseline if case.competing else None
        row = _measure(case, res, base)
        measured.append((row, _series(case, row, res, base) if case.rep == 0 else None))
    return measured


def run_benchmark(
    paths: Sequence[Path_],
    algos: Sequence[str],
    sizes: Sequence[str],
    replications: int,
    progress: str = "benchmark",
    series: Optional[dict[tuple[str, str, str, bool], dict[str, Any]]] = None,
) -> list[dict[str, Any]]:
    """Every run's row: path, algorithm, size, replication, competing, finished, completion_s
    (unfinished: the time it had), completion_ratio, loss, delay_p95_ms, and harm when competing.

    The runs are measured campaigns (tcpstart.sweep.measure): within `measuring(store=...)` a
    rerun simulates only what the store lacks, and `backend="ray"` runs them on a cluster. A
    group is one path, size and replication: every algorithm alone and against CUBIC, and the
    CUBIC flow alone for harm.

    `series`, when given, receives the time series behind the scores of replication 0, keyed by
    (path, algorithm, size, competing), for the figures."""
    groups = []
    for p in paths:
        for z in sizes:
            for r in range(replications):
                cases = tuple(Case(p, a, z, r, c) for c in (False, True) for a in algos)
                runs = [c.scenario(replications) for c in (*cases, Case(p, None, z, r, True))]
                groups.append((cases, runs))
    measured = measure_groups(groups, _measure_group, progress)
    rows = []
    for cases, _ in groups:
        for case, (row, case_series) in zip(cases, measured[cases]):
            rows.append(row)
            if series is not None and case_series is not None and case.algo is not None:
                series[(case.path.name, case.algo, case.size, case.competing)] = case_series
    return rows


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else math.nan


def cells(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per path, algorithm and size: medians over the replications."""
    grouped: dict[tuple[str, str, str], dict[str, list[float]]] = {}
    for r in rows:
        g = grouped.setdefault((r["path"], r["algorithm"], r["size"]), {})
        prefix = "shared_" if r["competing"] else ""
        keys = ("completion_ratio", "harm") if r["competing"] else ("completion_ratio", "loss", "delay_p95_ms")
        for k in keys:
            g.setdefault(prefix + k, []).append(r[k])
        g.setdefault("unfinished", []).append(not r["finished"])
    return [
        {"path": p, "algorithm": a, "size": z, **{k: sum(v) if k == "unfinished" else _median(v) for k, v in g.items()}}
        for (p, a, z), g in grouped.items()
    ]


def _geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def leaderboard(cell_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per algorithm, best completion ratio (alone) first."""
    by_algo: dict[str, list[dict[str, Any]]] = {}
    for c in cell_rows:
        by_algo.setdefault(c["algorithm"], []).append(c)
    board = []
    for algo, cs in by_algo.items():
        board.append({
            "algorithm": algo,
            "completion_ratio": _geomean([c["completion_ratio"] for c in cs]),
            "shared_completion_ratio": _geomean([c["shared_completion_ratio"] for c in cs]),
            "loss_pct": 100 * statistics.fmean(c["loss"] for c in cs),
            "delay_p95_ms": statistics.fmean(c["delay_p95_ms"] for c in cs),
            "harm_pct": 100 * statistics.fmean(c["shared_harm"] for c in cs),
            "unfinished": sum(c["unfinished"] for c in cs),
        })
    board.sort(key=lambda r: (r["completion_ratio"], r["algorithm"]))
    return board


BOARD_COLUMNS = (
    ("algorithm", "algorithm", "{}"),
    ("completion_ratio", "completion / ideal, alone", "{:.2f}"),
    ("shared_completion_ratio", "completion / ideal, vs CUBIC", "{:.2f}"),
    ("loss_pct", "loss caused (%)", "{:.2f}"),
    ("delay_p95_ms", "delay added, p95 (ms)", "{:.1f}"),
    ("harm_pct", "harm to CUBIC (%)", "{:.1f}"),
    ("unfinished", "unfinished runs", "{}"),
)
CELL_COLUMNS = (
    ("path", "path", "{}"),
    ("size", "size", "{}"),
    ("algorithm", "algorithm", "{}"),
    ("completion_ratio", "completion / ideal, alone", "{:.2f}"),
    ("shared_completion_ratio", "vs CUBIC", "{:.2f}"),
    ("loss", "loss", "{:.4f}"),
    ("delay_p95_ms", "delay p95 (ms)", "{:.1f}"),
    ("shared_harm", "harm", "{:.3f}"),
    ("unfinished", "unfinished", "{}"),
)


def _cells_text(row: dict[str, Any], columns: Sequence[tuple[str, str, str]]) -> list[str]:
    return [fmt.format(row[key]) for key, _, fmt in columns]


def markdown_table(rows: list[dict[str, Any]], columns: Sequence[tuple[str, str, str]]) -> str:
    lines = ["| " + " | ".join(h for _, h, _ in columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(_cells_text(r, columns)) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def html_table(rows: list[dict[str, Any]], columns: Sequence[tuple[str, str, str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for _, h, _ in columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(t)}</td>" for t in _cells_text(r, columns)) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def write_outputs(folder: Path, rows: list[dict[str, Any]], command: str, series: Optional[dict[tuple[str, str, str, bool], dict[str, Any]]] = None) -> list[dict[str, Any]]:
    """runs.csv, cells.csv, leaderboard.md and leaderboard.html into `folder`, and with `series`
    (from `run_benchmark`) the figures behind the scores in `folder/figures`; returns the board."""
    cell_rows = sorted(cells(rows), key=lambda c: (c["path"], size_bytes(c["size"]), c["algorithm"]))
    board = leaderboard(cell_rows)
    for name, table in (("runs.csv", rows), ("cells.csv", cell_rows)):
        with open(folder / name, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(dict.fromkeys(k for r in table for k in r)))
            w.writeheader()
            w.writerows(table)
    intro = f"Made by `{command}` (docs/benchmark.md says what each score means)."
    figures = write_figures(folder / "figures", rows, series) if series is not None else {}
    md_figures = "".join(
        f"\n### {name}\n\n" + "\n".join(f"![{name}: {kind}](figures/{p.name})" for kind, p in files.items()) + "\n"
        for name, files in figures.items()
    )
    html_figures = "".join(
        f"<h3>{html.escape(name)}</h3>" + "".join(f"<img src='figures/{html.escape(p.name)}' alt='{html.escape(name)}: {kind}' style='max-width:100%'>" for kind, p in files.items())
        for name, files in figures.items()
    )
    figures_heading = "Figures behind the scores (replication 0; docs/benchmark.md, \"Figures\")"
    (folder / "leaderboard.md").write_text(
        f"# Start-up benchmark\n\n{intro}\n\n{markdown_table(board, BOARD_COLUMNS)}\n## Cells (medians over replications)\n\n{markdown_table(cell_rows, CELL_COLUMNS)}"
        + (f"\n## {figures_heading}\n{md_figures}" if figures else "")
    )
    (folder / "leaderboard.html").write_text(
        "<!doctype html><html><head><meta charset='utf-8'><title>Start-up benchmark</title>"
        "<style>body{font-family:sans-serif}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}</style>"
        f"</head><body><h1>Start-up benchmark</h1><p>{html.escape(intro)}</p>{html_table(board, BOARD_COLUMNS)}"
        f"<h2>Cells (medians over replications)</h2>{html_table(cell_rows, CELL_COLUMNS)}"
        + (f"<h2>{html.escape(figures_heading)}</h2>{html_figures}" if figures else "")
        + "</body></html>\n"
    )
    return board
