"""The outcome of a run: summary and time series as polars DataFrames, pcap files, saving, plots."""

from __future__ import annotations

import html
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Union

import numpy as np
import polars as pl

from tcpstart import _core
from tcpstart._files import atomic_directory
from tcpstart.provenance import describe, provenance

if TYPE_CHECKING:
    from matplotlib.figure import Figure

Frame = Union[pl.DataFrame, Callable[[], pl.DataFrame]]

# The core reports an infinite ssthresh as u64::MAX; no real window comes near 2**62 bytes.
INFINITE = 2**62

# The polars type of each column type of the core's schema (crates/tcpstart-sim/src/columns.rs).
_DTYPES = {"float": pl.Float64, "int": pl.Int64, "text": pl.String, "link": pl.String}


def _schema_types() -> dict[str, dict[str, Any]]:
    """{table: {column: polars type}}, in the core's column order."""
    return {
        table["table"]: {c["name"]: _DTYPES[c["dtype"]] for c in table["columns"]}
        for table in json.loads(_core.schema())
    }


TYPES = _schema_types()
# Each table of a core run: the Run method that hands its columns over.
_TAKE = {"flows": "take_flows", "queues": "take_queues", "packets": "take_packets"}


def _column(name: str, encoded: tuple[Any, ...], dtype: Any) -> pl.Series:
    """Decodes a column from the core: (numpy type code, bytes) or ("str", codes, strings)."""
    if encoded[0] == "str":
        _, codes, strings = encoded
        return pl.Series(name, strings, dtype=pl.String).gather(np.frombuffer(codes, "u4"))
    code, data = encoded
    values = np.frombuffer(data, code)
    series = pl.Series(name, values)
    if code == "u8" and values.size and values.max() >= INFINITE:
        # The core's "infinite" (an unset ssthresh) has no Int64 value; it becomes null.
        series = pl.select(pl.when(series < INFINITE).then(series)).to_series()
    return series.cast(dtype)


def _frame(columns: dict[str, Any], types: dict[str, Any]) -> pl.DataFrame:
    # Explicit types keep empty tables and parquet schemas the same from run to run.
    return pl.DataFrame([_column(name, columns[name], dtype) for name, dtype in types.items() if name in columns])


def _rows(rows: list[dict[str, Any]], first: tuple[str, ...]) -> pl.DataFrame:
    # JSON objects arrive with sorted keys; the identifying columns read best on the left.
    df = pl.DataFrame(rows, infer_schema_length=None)
    return df.select(*[c for c in first if c in df.columns], pl.exclude(first))


_REPR_FLOWS = 8
_REPR_COLUMNS = ("id", "algorithm", "completed", "completion_time", "goodput_bps", "retransmissions", "drops")
_PLOT_KINDS = ("cwnd", "inflight", "rtt", "seq", "queue")


def describe_scenario(scenario: Optional[Dict[str, Any]]) -> str:
    """The path in the user's own units, e.g. '20Mbps, 200ms RTT, 1bdp queue, seed 1'."""
    if not scenario:
        return "scenario not recorded"
    net = scenario.get("network") or {}
    parts = [str(net[k]) + suffix for k, suffix in (("rate", ""), ("rtt", " RTT"), ("delay", " one-way"), ("queue", " queue")) if k in net]
    if "seed" in scenario:
        parts.append(f"seed {scenario['seed']}")
    return ", ".join(parts) or "default network"


def _flow_line(f: Dict[str, Any]) -> str:
    done = f"done in {f['completion_time']:.3f} s" if f.get("completion_time") is not None else "not completed"
    goodput = f.get("goodput_bps")
    rate = f", {goodput / 1e6:.2f} Mbps" if goodput else ""
    return f"  flow {f['id']} {f['algorithm']}: {done}{rate}, {f.get('retransmissions', 0)} retransmissions"


class Result:
    """Everything a run produced.

    `flows` samples each flow's state (window, RTTs, bytes delivered, phase, ...) at every tick
    of the trace interval while the flow exists (paused while it has no events), and at its
    start, phase changes and end. `queues` samples each link's queue at every tick while it
    holds packets. Both are in time order. `packets` has one row per packet event when tracing
    asked for it, else None. The columns, their types, units and meaning are those of
    `tcpstart._core.schema()`, listed in docs/scenarios.md, "Time series".

    The three tables and the summary are built from the core's run when first used: a sweep
    that reads only a few results pays nothing for the rest (building the tables costs more
    than a small run itself).
    """

    def __init__(
        self,
        raw_summary: Union[Dict[str, Any], str, Callable[[], Dict[str, Any]]],
        flows: Frame,
        queues: Frame,
        packets: Optional[Frame] = None,
        pcaps: Optional[Dict[str, bytes]] = None,
        scenario: Optional[Dict[str, Any]] = None,
        core_seconds: Optional[float] = None,
    ) -> None:
        """`flows`, `queues` and `packets` are DataFrames, or functions that build one;
        `raw_summary` is the summary dict, its JSON text or a function that makes the dict, parsed
        or called when first used."""
        self._run: Optional[_core.Run] = None
        self._summary: Union[None, Dict[str, Any], str, Callable[[], Dict[str, Any]]] = raw_summary
        self._tables: Dict[str, Optional[Frame]] = {"flows": flows, "queues": queues, "packets": packets}
        self.pcaps: Dict[str, bytes] = pcaps or {}
        self.scenario = scenario
        """The scenario as given to the core, kept so that saved results say how they were made."""
        self.core_seconds = core_seconds
        """Wall time the simulation itself took (not saved: it differs from run to run)."""
        self._provenance: Optional[Dict[str, Any]] = None

    @property
    def raw_summary(self) -> Dict[str, Any]:
        """The run's summary.json as a dict: flows, links, classes, udp, sim, invariants."""
        if self._summary is None:  # from a core run
            assert self._run is not None
            self._summary = self._run.summary()
        elif isinstance(self._summary, str):
            self._summary = json.loads(self._summary)
        elif callable(self._summary):
            self._summary = self._summary()
        return self._summary

    def _table(self, name: str) -> Optional[pl.DataFrame]:
        if name not in self._tables:  # from a core run, which hands each table over once
            columns = getattr(self._run, _TAKE[name])()
            self._tables[name] = None if columns is None else _frame(columns, TYPES[name])
        table = self._tables[name]
        if callable(table):
            table = self._tables[name] = table()
        return table

    @property
    def flows(self) -> pl.DataFrame:
        table = self._table("flows")
        assert table is not None
        return table

    @property
    def queues(self) -> pl.DataFrame:
        table = self._table("queues")
        assert table is not None
        return table

    @property
    def packets(self) -> Optional[pl.DataFrame]:
        return self._table("packets")

    @classmethod
    def from_core(cls, out: _core.Run, scenario: dict[str, Any] | None = None) -> Result:
        """Wraps a finished core run; its summary and tables cross into Python when first used."""
        # The run itself stands in for the summary and the tables (see raw_summary and _table):
        # wrapping a run makes no closures or dicts that Python's garbage collector would have
        # to walk again and again while a sweep's results pile up.
        res = cls.__new__(cls)
        res._run, res._summary, res._tables = out, None, {}
        res.pcaps, res.scenario, res.core_seconds = out.pcaps(), scenario, out.core_seconds
        res._provenance = None
        return res

    def __reduce__(self) -> tuple[Any, ...]:
        # A core run cannot leave its process: a pickled Result carries its tables as frames.
        return (
            Result,
            (self.raw_summary, self.flows, self.queues, self.packets, self.pcaps, self.scenario, self.core_seconds),
            {"_provenance": self.provenance},
        )

    @property
    def summary(self) -> pl.DataFrame:
        """One row per flow: completion time, goodput, retransmissions, slow-start exit, ..."""
        return _rows(self.raw_summary["flows"], first=("id", "algorithm"))

    @property
    def udp(self) -> pl.DataFrame:
        """One row per UDP source: packets and bytes sent, delivered and lost, goodput."""
        rows = self.raw_summary.get("udp") or []
        if not rows:
            return pl.DataFrame(schema={"id": pl.Int64, "class": pl.String})
        return _rows(rows, first=("id", "class"))

    @property
    def classes(self) -> pl.DataFrame:
        """One row per class label: goodput, Jain index, drop rate, completion-time quantiles
        (columns ct_p50, ct_p90, ...) and UDP packets sent/delivered/lost."""
        rows = []
        for name, c in (self.raw_summary.get("classes") or {}).items():
            row = {"class": name, **{k: v for k, v in c.items() if k not in ("completion_time", "udp")}}
            row.update({f"ct_{k}": v for k, v in (c["completion_time"] or {}).items()})
            row.update({f"udp_{k}": v for k, v in c["udp"].items()})
            rows.append(row)
        if not rows:
            return pl.DataFrame(schema={"class": pl.String})
        return _rows(rows, first=("class",))

    @property
    def links(self) -> pl.DataFrame:
        """One row per link: utilization, drops, queue occupancy."""
        return _rows(self.raw_summary["links"], first=("name",))

    def save(self, directory: str | os.PathLike[str]) -> Path:
        """Writes summary.json, scenario.json, flows/queues/packets.parquet and <link>.pcap.

        The folder appears complete or not at all; an existing one is replaced only on success.
        """
        with atomic_directory(directory) as tmp:
            self.write_into(tmp)
        return Path(directory)

    @property
    def provenance(self) -> Dict[str, Any]:
        """Which tcpstart made this result, and when and where (saved in summary.json).

        A loaded result keeps the provenance it was saved with; a new one takes this process's.
        """
        if self._provenance is None:
            self._provenance = provenance()
        return self._provenance

    def write_into(self, directory: Path) -> None:
        """Writes the files into an existing folder, without the all-or-nothing guarantee of save()."""
        meta = {"tcpstart.provenance": json.dumps(self.provenance)}
        summary = {**self.raw_summary, "provenance": self.provenance}
        (directory / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        if self.scenario is not None:
            (directory / "scenario.json").write_text(json.dumps(self.scenario, indent=2, default=str) + "\n")
        self.flows.write_parquet(directory / "flows.parquet", metadata=meta)
        self.queues.write_parquet(directory / "queues.parquet", metadata=meta)
        if self.packets is not None:
            self.packets.write_parquet(directory / "packets.parquet", metadata=meta)
        for link, data in self.pcaps.items():
            (directory / f"{link}.pcap").write_bytes(data)

    @classmethod
    def load(cls, directory: str | os.PathLike[str]) -> Result:
        """Reads a folder written by save()."""
        d = Path(directory)
        if not (d / "summary.json").is_file():
            raise ValueError(f"{d}: not a tcpstart result folder (no summary.json)")
        try:
            packets = d / "packets.parquet"
            scenario = d / "scenario.json"
            summary = json.loads((d / "summary.json").read_text())
            loaded = cls(
                raw_summary=summary,
                flows=pl.read_parquet(d / "flows.parquet"),
                queues=pl.read_parquet(d / "queues.parquet"),
                packets=pl.read_parquet(packets) if packets.exists() else None,
                pcaps={p.stem: p.read_bytes() for p in sorted(d.glob("*.pcap"))},
                scenario=json.loads(scenario.read_text()) if scenario.exists() else None,
            )
            # A folder saved before provenance was recorded gets an empty one, not this process's.
            loaded._provenance = summary.pop("provenance", {})
            return loaded
        except (pl.exceptions.PolarsError, json.JSONDecodeError) as e:
            raise ValueError(f"{d}: damaged result file: {str(e).splitlines()[0]}") from None

    def __repr__(self) -> str:
        flows = self.raw_summary["flows"]
        lines = [f"<tcpstart.Result: {len(flows)} flow{'s' * (len(flows) != 1)}, {describe_scenario(self.scenario)}>"]
        lines += [_flow_line(f) for f in flows[:_REPR_FLOWS]]
        if len(flows) > _REPR_FLOWS:
            lines.append(f"  ... {len(flows) - _REPR_FLOWS} more (res.summary has them all)")
        lines.append(f"  {describe(self.provenance)}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        flows = self.summary.head(_REPR_FLOWS).select(
            [c for c in _REPR_COLUMNS if c in self.summary.columns]
        )
        more = len(self.raw_summary["flows"]) - flows.height
        return (
            f"<p><b>tcpstart result</b>: {html.escape(describe_scenario(self.scenario))}</p>"
            + flows._repr_html_()
            + (f"<p>... and {more} more flows (<code>res.summary</code>)</p>" if more > 0 else "")
            + f"<p><small>{html.escape(describe(self.provenance))}; plots: <code>res.plot(\"cwnd\")</code>, "
            + f"{', '.join(_PLOT_KINDS)}</small></p>"
        )

    def flow_labels(self) -> dict[int, str]:
        """Legend text for each flow id, e.g. {0: "0 newreno"}."""
        return {f["id"]: f"{f['id']} {f['algorithm']}" for f in self.raw_summary["flows"]}

    def plot(self, kind: str = "cwnd") -> Figure:
        """A matplotlib Figure of one of tcpstart.plot.KINDS: cwnd, inflight, rtt, seq, queue."""
        from tcpstart import plot  # matplotlib is slow to import; only plotting pays for it

        labels = self.flow_labels()
        algos = {f["id"]: f["algorithm"] for f in self.raw_summary["flows"]}
        sub = describe_scenario(self.scenario)
        bdps = {f["bdp_bytes"] for f in self.raw_summary["flows"]}
        bdp = bdps.pop() if len(bdps) == 1 else None
        draw = {
            "cwnd": lambda: plot.cwnd(self.flows, labels, bdp=bdp, algorithms=algos, subtitle=sub),
            "inflight": lambda: plot.inflight(self.flows, labels, bdp=bdp, algorithms=algos, subtitle=sub),
            "rtt": lambda: plot.rtt(self.flows, labels, algorithms=algos, subtitle=sub),
            "seq": lambda: plot.seq(self.flows, self.packets, labels, algorithms=algos, subtitle=sub),
            "queue": lambda: plot.queue(self.queues, subtitle=sub),
        }
        if kind not in draw:
            raise ValueError(f"unknown plot kind {kind!r}; use one of {', '.join(draw)}")
        return draw[kind]()
