"""The `tcpstart` command: compare, run, plot, algorithms, validate, reproduce, bench.

User mistakes (bad options, bad scenario files, unwritable folders) end with one line on stderr,
`tcpstart: error: <what and where>`, and exit status 2, never a traceback. A run that breaks one
of the simulator's invariants (a simulator bug) ends the same way with exit status 3, and Ctrl-C
stops any command at once with exit status 130; neither leaves a result folder behind.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import runpy
import shlex
import sys
import traceback
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Optional, Sequence

import polars as pl
from rich.console import Console
from rich.table import Table

from tcpstart import plot, startup_benchmark
from tcpstart._files import atomic_directory, check_output_folder
from tcpstart.batch import default_workers, run_many
from tcpstart.controllers import ControllerError
from tcpstart.crosscheck.command import add_command as add_crosscheck_command
from tcpstart.reproduce import names as reproduce_names
from tcpstart.kernel.command import add_command as add_testbed_command
from tcpstart.results import Result, describe_scenario
from tcpstart.progress import ANNOUNCE_OVER
from tcpstart.simulate import InvariantError, algorithms, estimate, run
from tcpstart.scenario import Dumbbell, Flow, Scenario, ScenarioError, Tcp, read_scenario_file, validate, validate_toml
from tcpstart.sweep.command import add_command as add_sweep_command
from tcpstart.sweep.measure import measuring

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# Soft wrapping keeps long paths on one line when output is piped; tables still fit the width.
console = Console(soft_wrap=True)

# Options whose values may start with "-": argparse would take "-5Mbps" for an option, but a
# negative rate is a value the core should explain.
VALUE_OPTIONS = ("--rate", "--rtt", "--queue", "--size", "--duration")

# The compare option each scenario field comes from, to name the option in error messages.
COMPARE_OPTIONS = {
    "network.rate": "--rate",
    "network.rtt": "--rtt",
    "network.queue": "--queue",
    "network.ack_jitter": "--ack-jitter",
    "flows.size": "--size",
    "duration": "--duration",
    "seed": "--seed",
}

NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:
        # One line like every other error; the usage is one --help away.
        self.exit(2, f"tcpstart: error: {message} (see '{self.prog} --help')\n")


def _value(text: Optional[str]) -> Any:
    """A bare number on the command line means what it means in a TOML file (--queue 100 = 100 packets)."""
    if text is None or not NUMBER.fullmatch(text):
        return text
    return float(text) if any(c in text for c in ".eE") else int(text)


def _folder(text: str) -> str:
    """An output folder option: an empty one would silently mean the default."""
    if not text.strip():
        raise argparse.ArgumentTypeError("give a folder name")
    return text


def _glue_negative_values(argv: Sequence[str]) -> list[str]:
    out: list[str] = []
    for arg in argv:
        if out and out[-1] in VALUE_OPTIONS and re.match(r"-[\d.]", arg):
            out[-1] = f"{out[-1]}={arg}"
        else:
            out.append(arg)
    return out


@contextlib.contextmanager
def _in_file(path: str) -> Iterator[None]:
    """Prefixes scenario errors with the file they are about."""
    try:
        yield
    except ScenarioError as e:
        raise ScenarioError(f"{path}: {e}") from None


def _secs(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:.3f} s"


def _mbps(bps: Optional[float]) -> str:
    return "-" if bps is None else f"{bps / 1e6:.2f} Mbps"


def _table(*headers: str) -> Table:
    # No frame, so that the tables fit in 80 columns when output is piped.
    return Table(*headers, box=None, pad_edge=False, header_style="bold underline")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "_", text)


# --- compare ---------------------------------------------------------------------------------


def _compare_error(e: ScenarioError, scenario: Scenario) -> ScenarioError:
    """Renames a scenario field in a core error to the compare option it came from."""
    field, _, message = str(e).partition(": ")
    m = re.fullmatch(r"flows\[(\d+)\]\.(\w+)(?:\.(\w+))?", field)
    if m and m[2] == "algorithm":
        return ScenarioError(f"--algos: {message}")  # the core's message names the algorithm
    if m and m[2] == "params":
        return ScenarioError(f"--params: {scenario.flows[int(m[1])].algorithm}.{m[3]}: {message}")
    option = COMPARE_OPTIONS.get(f"flows.{m[2]}" if m else field)
    return ScenarioError(f"{option}: {message}" if option else str(e))


def _compare_params(text: Optional[str], algos: list[str]) -> dict[str, dict[str, float]]:
    """--params "abc=2,cubic.beta=0.7": a bare name sets the parameter of every chosen algorithm
    that has it, ALGO.NAME only that algorithm's. Returns the params of each algorithm."""
    params: dict[str, dict[str, float]] = {a: {} for a in algos}
    if not text:
        return params
    known = {a["name"]: {p["name"] for p in a["params"]} for a in algorithms()}
    for item in filter(None, (i.strip() for i in text.split(","))):
        name, eq, value = item.partition("=")
        algo, _, key = name.strip().rpartition(".")
        try:
            number = float(value)
        except ValueError:
            raise ScenarioError(f"--params: {item!r}: give NAME=NUMBER or ALGORITHM.NAME=NUMBER, e.g. abc=2") from None
        if not eq or not key:
            raise ScenarioError(f"--params: {item!r}: give NAME=NUMBER or ALGORITHM.NAME=NUMBER, e.g. abc=2")
        if algo and algo not in params:
            raise ScenarioError(f"--params: {item!r}: {algo!r} is not one of the algorithms compared ({', '.join(algos)})")
        # A qualified name goes to the core as given, which names a parameter the algorithm lacks.
        targets = [algo] if algo else [a for a in algos if key in known.get(a, set())]
        if not targets:
            raise ScenarioError(f"--params: {key!r}: none of {', '.join(algos)} has this parameter (see tcpstart algorithms)")
        for a in targets:
            params[a][key] = number
    return params


def _compare_rows(results: dict[str, list[Result]], seed: int) -> list[dict[str, Any]]:
    rows = []
    for runs in results.values():
        for i, result in enumerate(runs):
            rows.extend(_flow_rows(result, seed + i))
    return rows


def _flow_rows(result: Result, seed: int) -> list[dict[str, Any]]:
    links = result.raw_summary["links"]
    peak = next(link["max_queue_packets"] for link in links if link["name"] == "bottleneck")
    return [
        {
            "algorithm": f["algorithm"],
            "seed": seed,
            "completion_time_s": f["completion_time"],
            "goodput_bps": f["goodput_bps"],
            "time_to_bdp_s": f["time_to_bdp"],
            "peak_queue_packets": peak,
            "drops": f["drops"],
            "retransmissions": f["retransmissions"],
        }
        for f in result.raw_summary["flows"]
    ]


def compare_figures(results: dict[str, Result], shared: bool) -> tuple[Figure, Figure]:
    """compare's cwnd and queue figures."""
    first = next(iter(results.values()))
    if shared:
        cwnd, queue = first.plot("cwnd"), first.plot("queue")
    else:
        # Separate runs: one line per run, named and styled by its algorithm, in the same figure.
        names = list(results)
        flows = pl.concat([r.flows.with_columns(flow=pl.lit(i, pl.Int64)) for i, r in enumerate(results.values())])
        queues = pl.concat(
            [r.queues.filter(pl.col("link") == "bottleneck").with_columns(link=pl.lit(n)) for n, r in results.items()]
        )
        bdp = first.raw_summary["flows"][0]["bdp_bytes"]
        sub = f"{describe_scenario(first.scenario)}, one run per algorithm"
        cwnd = plot.cwnd(flows, dict(enumerate(names)), bdp=bdp, algorithms=dict(enumerate(names)), subtitle=sub)
        queue = plot.queue(queues, subtitle=sub, title="Bottleneck queue length", by_algorithm=True)
    return cwnd, queue


def _announce_minutes(label: str, seconds: float) -> None:
    """Says up front, on stderr, that what starts now will take minutes (the core's estimate)."""
    if seconds > ANNOUNCE_OVER:
        print(f"tcpstart: {label}: this will take about {seconds / 60:.0f} min (estimated); Ctrl-C stops it", file=sys.stderr)


def _compare_plots(results: dict[str, Result], shared: bool, directory: Path, formats: Sequence[str]) -> None:
    cwnd, queue = compare_figures(results, shared)
    for fmt in formats:
        cwnd.savefig(directory / f"cwnd.{fmt}", dpi=150)
        queue.savefig(directory / f"queue.{fmt}", dpi=150)


def cmd_compare(args: argparse.Namespace) -> int:
    names = [a["name"] for a in algorithms()] if args.algos is None else args.algos.split(",")
    # Each algorithm once, in the order given.
    algos = list(dict.fromkeys(a.strip() for a in names if a.strip()))
    if not algos:
        raise ScenarioError("--algos: give at least one algorithm name, e.g. --algos reno,newreno")
    if args.seeds < 1:
        raise ScenarioError(f"--seeds: must be at least 1, got {args.seeds}")
    params = _compare_params(args.params, algos)
    network = Dumbbell(rate=_value(args.rate), rtt=_value(args.rtt), queue=_value(args.queue), ack_jitter=_value(args.ack_jitter))
    size = _value(args.size)

    def scenarios(seed: int) -> dict[str, Scenario]:
        common = dict(duration=_value(args.duration), seed=seed, tcp=Tcp(profile=args.profile))
        if args.shared:
            return {"shared": Scenario(network, [Flow(a, size=size, params=params[a]) for a in algos], **common)}
        return {a: Scenario(network, [Flow(a, size=size, params=params[a])], **common) for a in algos}

    first = scenarios(args.seed)
    for scenario in first.values():
        try:
            validate(scenario.to_dict())
        except ScenarioError as e:
            raise _compare_error(e, scenario) from None

    default = f"tcpstart-out/compare-{_slug(args.rate)}-{_slug(args.rtt)}-{_slug(args.size)}"
    out = Path(args.out or default + ("-shared" if args.shared else ""))
    check_output_folder(out)
    formats = _formats(args.format)

    how = "sharing one bottleneck" if args.shared else "one run each"
    seeds = f", seeds {args.seed}-{args.seed + args.seeds - 1} (means)" if args.seeds > 1 else ""
    console.print(f"{', '.join(algos)}: {args.size} over {args.rate}, {args.rtt} RTT, {args.queue} queue, {how}{seeds}")
    # Every algorithm and seed at once, on all cores.
    todo = [(name, s) for seed in range(args.seed, args.seed + args.seeds) for name, s in scenarios(seed).items()]
    _announce_minutes("compare", sum(estimate(s)["cpu_seconds"] for _, s in todo) / default_workers())
    done = run_many([s for _, s in todo], progress="compare" if console.is_terminal else None)
    results: dict[str, list[Result]] = {name: [] for name in first}
    for (name, _), result in zip(todo, done):
        results[name].append(result)
    rows = _compare_rows(results, args.seed)

    firsts = {name: runs[0] for name, runs in results.items()}
    with atomic_directory(out) as tmp:
        pl.DataFrame(rows, infer_schema_length=None).write_csv(tmp / "compare.csv")
        for name, result in firsts.items():
            # A shared run is one result; separate runs get a folder per algorithm.
            folder = tmp if args.shared else tmp / name
            folder.mkdir(exist_ok=True)
            result.write_into(folder)
        _compare_plots(firsts, args.shared, tmp, formats)

    table = _table("algorithm", "completion", "goodput", "time to BDP", "peak queue", "drops", "retx")
    means = pl.DataFrame(rows, infer_schema_length=None).group_by("algorithm", maintain_order=True).mean()
    for r in means.iter_rows(named=True):
        table.add_row(
            r["algorithm"],
            _secs(r["completion_time_s"]),
            _mbps(r["goodput_bps"]),
            _secs(r["time_to_bdp_s"]),
            f"{r['peak_queue_packets']:.0f} pkt",
            f"{r['drops']:.0f}" if args.seeds == 1 else f"{r['drops']:.1f}",
            f"{r['retransmissions']:.0f}" if args.seeds == 1 else f"{r['retransmissions']:.1f}",
        )
    console.print(table)
    for note in [*_seed_notes(rows, args.seeds), *_compare_notes(firsts, means, args.shared, params)]:
        console.print(note, soft_wrap=False)
    console.print(f"results in {out}/")
    return 0


# The metrics two rows of compare must share to count as the same result.
_SAME = ("completion_time_s", "goodput_bps", "peak_queue_packets", "drops", "retransmissions")


def _seed_notes(rows: list[dict[str, Any]], seeds: int) -> list[str]:
    """Says which algorithms' seeds all gave the same figures: their means are one run's."""
    if seeds < 2:
        return []
    varied = pl.DataFrame(rows, infer_schema_length=None).group_by("algorithm", maintain_order=True).agg(
        pl.max_horizontal(pl.col(m).n_unique() for m in _SAME).alias("values")
    )
    same = varied.filter(pl.col("values") == 1)["algorithm"].to_list()
    if not same:
        return []
    return [
        f"- the {seeds} seeds gave identical results for {', '.join(same)}: nothing on this path is random "
        "(seeds drive random loss, bit errors, cross traffic and ACK jitter), so the means are one run's; "
        "--ack-jitter 200us varies the receiver's ACK timing per seed."
    ]


def _compare_notes(
    results: dict[str, Result], means: pl.DataFrame, shared: bool, params: dict[str, dict[str, float]]
) -> list[str]:
    """What a reader of compare's table needs to know to read it fairly."""
    notes = []
    if not shared:
        groups: dict[tuple[Any, ...], list[str]] = {}
        for r in means.iter_rows(named=True):
            groups.setdefault(tuple(r[k] for k in _SAME), []).append(r["algorithm"])
        for names in (g for g in groups.values() if len(g) > 1):
            flows = [results[n].raw_summary["flows"][0] for n in names]
            why = (
                ": none left slow start and none lost a packet, so only their slow start ran, and it is the same"
                if all(f["ss_exit_time"] is None and f["drops"] == 0 for f in flows)
                else " (their differences never came into play on this path)"
            )
            notes.append(f"- identical results for {', '.join(names)}{why}.")
    if means["time_to_bdp_s"].is_null().any():
        notes.append("- time to BDP '-': the window never reached the path's bandwidth-delay product.")
    names = set(results) if not shared else {f["algorithm"] for f in next(iter(results.values())).raw_summary["flows"]}
    per_ack = sorted(n for n in names if any(p["name"] == "abc" and p["default"] == 1 for p in _params_of(n)) and params.get(n, {}).get("abc", 1) == 1)
    if per_ack and names - set(per_ack):
        notes.append(
            f"- footing: {', '.join(per_ack)} grow by one MSS per ACK in slow start (RFC 5681, abc=1: about 1.5x per RTT "
            "with delayed ACKs) while Linux-style algorithms such as cubic count bytes (2x per RTT); much of a lead "
            "in slow start can come from that. --params abc=2 (RFC 3465) or abc=0 (Linux) puts them on one footing."
        )
    return notes


def _params_of(name: str) -> list[dict[str, Any]]:
    return next((a["params"] for a in algorithms() if a["name"] == name), [])


# --- run, plot, algorithms, validate ---------------------------------------------------------


def _summary_table(result: Result) -> Table:
    table = _table("flow", "algorithm", "completion", "goodput", "max cwnd", "ss exit", "retx", "RTOs", "drops")
    for f in result.raw_summary["flows"]:
        table.add_row(
            str(f["id"]),
            f["algorithm"],
            _secs(f["completion_time"]) if f["completed"] else "no",
            _mbps(f["goodput_bps"]),
            f"{f['max_cwnd'] / 1e3:.1f} KB",
            _secs(f["ss_exit_time"]),
            str(f["retransmissions"]),
            str(f["timeouts"]),
            str(f["drops"]),
        )
    return table


# Above this many flows `run` prints one row per class instead of one per flow.
MAX_FLOW_ROWS = 20


def _class_table(result: Result) -> Table:
    table = _table("class", "flows", "done", "goodput", "drop rate", "median compl.", "p90 compl.", "UDP sent/lost")
    for name, c in result.raw_summary["classes"].items():
        ct = c["completion_time"] or {}
        udp = c["udp"]
        table.add_row(
            name,
            str(c["flows"]),
            str(c["completed"]),
            _mbps(c["goodput_bps"]),
            f"{c['drop_rate']:.2%}",
            _secs(ct.get("p50")),
            _secs(ct.get("p90")),
            f"{udp['sent_packets']}/{udp['lost_packets']}" if udp["sources"] else "-",
        )
    return table


def cmd_run(args: argparse.Namespace) -> int:
    scenario = read_scenario_file(args.scenario)
    trace = scenario.setdefault("trace", {})
    # A malformed [trace] is left for the core to report.
    if isinstance(trace, dict):
        if args.packets:
            trace["packets"] = True
        if args.pcap and isinstance(trace.get("pcap", []), list):
            trace["pcap"] = list(dict.fromkeys([*trace.get("pcap", []), *args.pcap]))
    out = Path(args.out or f"tcpstart-out/{Path(args.scenario).stem}")
    check_output_folder(out)
    with _in_file(args.scenario):
        result = run(scenario, label=Path(args.scenario).name)
    result.save(out)
    many = len(result.raw_summary["flows"]) > MAX_FLOW_ROWS or result.raw_summary["udp"]
    console.print(_class_table(result) if many else _summary_table(result))
    console.print(f"results in {out}/")
    return 0


def _formats(text: str) -> list[str]:
    formats = [f.strip().lower() for f in text.split(",") if f.strip()]
    unknown = [f for f in formats if f not in plot.FORMATS]
    if unknown or not formats:
        raise ValueError(f"--format: unknown format {(unknown or [text])[0]!r}; use png, pdf or svg (comma-separated)")
    return formats


def cmd_plot(args: argparse.Namespace) -> int:
    for path in plot.plot_dir(args.dir, _formats(args.format)):
        console.print(str(path))
    return 0


def cmd_algorithms(args: argparse.Namespace) -> int:
    algos = algorithms()
    if args.name:
        by_name = {a["name"]: a for a in algos}
        if args.name not in by_name:
            # The core's message for an unknown name, with its suggestion.
            validate({"network": {"rate": "1Mbps", "rtt": "10ms"}, "flows": [{"algorithm": args.name, "size": 1}]})
        algos = [by_name[args.name]]
    if args.json:
        print(json.dumps(algos[0] if args.name else algos, indent=2))
        return 0
    if args.name:
        a = algos[0]
        console.print(f"[bold]{a['name']}[/bold]: {a['summary']}\n({a['reference']})")
        table = _table("parameter", "default", "range", "meaning")
        for p in a["params"]:
            kind = " integer" if p["integer"] else ""
            table.add_row(p["name"], f"{p['default']:g}", f"[{p['min']:g}, {p['max']:g}]{kind}", p["doc"])
        console.print(table if a["params"] else "no parameters")
        return 0
    # One line each; `tcpstart algorithms NAME` gives one algorithm's parameters in full.
    table = _table("algorithm", "parameters", "description")
    for a in algos:
        table.add_row(a["name"], ", ".join(p["name"] for p in a["params"]) or "-", a["summary"])
    console.print(table)
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    scenario = read_scenario_file(args.scenario)
    with _in_file(args.scenario):
        resolved = validate_toml(scenario)
    print(resolved, end="")
    return 0


def cmd_reproduce(args: argparse.Namespace) -> int:
    from tcpstart import reproduce

    todo = reproduce.names() if args.name == "all" else [args.name]
    for name in todo:
        reproduce.reproducer(name)  # an unknown name fails before anything runs
    root = Path(args.out or "tcpstart-out/reproduce")
    for name in todo:
        check_output_folder(root / name)
    verdicts = _table("paper", "source", "claim", "verdict")
    for name in todo:
        console.print(f"[bold]{name}[/bold]{' (quick)' if args.quick else ''}")
        report = reproduce.reproduce(
            name, root / name, quick=args.quick, store=args.store, backend=args.backend, address=args.address, rerun=args.rerun
        )
        for c in report.claims:
            verdicts.add_row(name, c.source, c.statement, report.status(c))
        if not args.quick:
            t = report.tally()
            console.print(
                f"{t['reproduced']} reproduced, {t['reproduced in trend only']} in trend only, "
                f"{t['not reproduced']} not reproduced ({t['consistency checks']} consistency checks and "
                f"{t['out of scope']} out of scope, not counted)"
            )
        console.print(f"report in {root / name}/report.md")
    console.print(verdicts)
    return 0


def _in_ns3(ns3: Any, name: str, duration: Optional[str]) -> dict[str, Any]:
    """Benchmark `name` in ns-3 (module `tcpstart.bench_ns3`, imported only for `--ns3`)."""
    console.print(f"{name} in ns-3 ...")
    measured: dict[str, Any] = ns3.measure_ns3(name, duration)
    return measured


def cmd_bench(args: argparse.Namespace) -> int:
    from tcpstart import bench

    chosen = args.names or [*bench.BENCHMARKS, "B5"]
    unknown = [n for n in chosen if n not in bench.BENCHMARKS and n != "B5"]
    if unknown:
        raise ValueError(f"unknown benchmark {unknown[0]!r}; available: {', '.join([*bench.BENCHMARKS, 'B5'])}")
    if args.repeat < 1:
        raise ValueError(f"--repeat must be at least 1, got {args.repeat}")
    if args.runs < 1:
        raise ValueError(f"--runs must be at least 1, got {args.runs}")
    if args.duration is not None:
        # Checked here, before any child process runs a benchmark with it.
        for name in chosen:
            if name != "B5":
                try:
                    validate(bench.BENCHMARKS[name].scenario(_value(args.duration)))
                except ScenarioError as e:
                    raise ScenarioError(f"--duration: {str(e).partition(': ')[2]}") from None
    ns3 = None
    if args.ns3:
        from tcpstart import bench_ns3

        ok, why = bench_ns3.ns3_status()
        if ok:
            ns3 = bench_ns3
        else:
            console.print(f"ns-3 comparison skipped: {why}")
    rows = []
    headers = ["bench", "simulated", "wall", "bottleneck pkts/s", "events/s", "peak RSS"]
    table = _table(*headers, *(["ns-3 wall", "ns-3 / tcpstart", "ns-3 RSS"] if ns3 else []))
    # With ns-3, B3 (Jump Start against its closest ns-3 counterpart) is followed by the
    # configuration both simulators run alike.
    todo = [n for name in chosen if name != "B5" for n in [name, *(bench.NS3_VARIANTS.get(name, []) if ns3 else [])]]
    for name in todo:
        described = bench.BENCHMARKS.get(name) or bench.VARIANTS[name]
        console.print(f"{name}: {described.description} ...")
        theirs: dict[str, Any] = {}
        if ns3:
            # Ours run before and after ns-3's run, so that both see the machine alike.
            r, theirs = bench.measure_around(
                name, args.duration, args.repeat, partial(_in_ns3, ns3, name, args.duration or described.duration)
            )
        else:
            r = bench.measure_repeated(name, args.duration, args.repeat)
        cells = [
            name,
            f"{r['simulated_s']:.0f} s",
            f"{r['wall_s']:.2f} s",
            f"{r['bottleneck_packets_per_s'] / 1e6:.2f} M",
            f"{r['events_per_s'] / 1e6:.1f} M",
            f"{r['peak_rss_mb']:.0f} MB",
        ]
        if ns3:
            r.update(theirs)
            r["ns3_over_tcpstart"] = r["ns3_wall_s"] / r["wall_s"]
            cells += [f"{r['ns3_wall_s']:.1f} s", f"{r['ns3_over_tcpstart']:.0f}x", f"{r['ns3_peak_rss_mb']:.0f} MB"]
        rows.append(r)
        table.add_row(*cells)
    if table.row_count:
        console.print(table)
    if "B5" in chosen:
        console.print("B5: many small runs through the Python API ...")
        r = bench.many_small_runs(args.runs)
        rows.append(r)
        console.print(
            f"B5: {r['runs']} runs in {r['makespan_all_cores_s']:.2f} s on {r['workers']} workers "
            f"({r['runs_per_s']:.0f} runs/s), {r['makespan_one_core_s']:.2f} s on one: speed-up {r['speedup']:.2f} "
            f"({r['speedup_over_linear']:.0%} of linear); Python overhead {r['python_overhead_fraction']:.1%} of a run"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    return 0


def _version() -> str:
    from tcpstart.provenance import build, commit_label

    b = build()
    return f"tcpstart {b['version']} ({commit_label(b)}{', PGO' if b['pgo'] else ''}, {b['profile']} build)"


def _command(commands: Any, name: str, help: str, examples: Sequence[str]) -> argparse.ArgumentParser:
    """A subcommand whose --help starts with what it does and ends with examples."""
    return commands.add_parser(
        name,
        help=help,
        description=help[0].upper() + help[1:] + ".",
        epilog="examples:\n" + "\n".join(f"  {e}" for e in examples),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def _links(text: str) -> list[str]:
    """--pcap's value: one link or several, comma-separated (a list of its own would swallow the
    scenario path given after it)."""
    return [link.strip() for link in text.split(",") if link.strip()]


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tcpstart",
        description="An open lab for TCP start-up and congestion-control algorithms: a packet-level "
        "simulator, the papers' reproductions, campaigns, and a Linux testbed.",
        epilog="Every command has --help with examples. Docs: docs/ in the repository (make docs).",
    )
    parser.add_argument("--version", action="version", version=_version())
    parser.add_argument(
        "--controllers", metavar="FILE.py[,FILE.py]",
        help="Python files that register controllers (ts.register), so every command can name them",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add = partial(_command, commands)

    p = add("compare", "run each algorithm on the same dumbbell and compare them", ['tcpstart compare', 'tcpstart compare --algos cubic,jump-start --rate 100Mbps --rtt 40ms --size 10MB', 'tcpstart compare --shared --size unlimited --duration 30s', 'tcpstart compare --algos newreno,cubic --params abc=2 --seeds 5'])
    p.add_argument("--rate", default="20Mbps", help="bottleneck rate (default: %(default)s)")
    p.add_argument("--rtt", default="200ms", help="base round-trip time (default: %(default)s)")
    p.add_argument("--queue", default="1bdp", help="bottleneck queue: 100pkt, 150KB or 1bdp (default: %(default)s)")
    p.add_argument("--size", default="1MB", help="bytes per flow, or 'unlimited' with --duration (default: %(default)s)")
    p.add_argument("--algos", help="comma-separated algorithm names (default: all)")
    p.add_argument("--shared", action="store_true", help="all flows share one bottleneck in one run")
    p.add_argument("--duration", help="simulated time limit, e.g. 30s")
    p.add_argument("--seed", type=int, default=1, help="random seed (default: %(default)s)")
    p.add_argument("--seeds", type=int, default=1, help="runs per algorithm, seeds SEED, SEED+1, ...; the table shows their means, compare.csv each (default: %(default)s)")
    p.add_argument("--ack-jitter", metavar="TIME", help="the receiver's ACK processing jitter (network.ack_jitter), e.g. 200us: what makes --seeds differ on this otherwise deterministic path")
    p.add_argument("--profile", choices=["rfc", "linux"], default="rfc",
                   help="whose TCP the endpoints model: the RFCs' or Linux's (docs/linux-profile.md; default: %(default)s)")
    p.add_argument("--params", help="algorithm parameters: NAME=NUMBER for every algorithm that has it, ALGO.NAME=NUMBER for one, e.g. abc=2,cubic.beta=0.7")
    p.add_argument("--out", metavar="DIR", type=_folder, help="output folder (default: tcpstart-out/compare-RATE-RTT-SIZE)")
    p.add_argument(
        "--format", default="png", metavar="FMT[,FMT]",
        help="figure formats, comma-separated: png, pdf, svg (default: %(default)s)",
    )
    p.set_defaults(func=cmd_compare)

    p = add("run", "run a scenario file and save its results", ['tcpstart run scenarios/dumbbell-newreno.toml --out out/newreno', 'tcpstart run my.toml --packets --pcap bottleneck,sender0_out', 'tcpstart run out/newreno/scenario.json --out out/again'])
    p.add_argument("scenario", metavar="SCENARIO", help="a scenario file: TOML, or a result folder's scenario.json")
    p.add_argument("--out", metavar="DIR", type=_folder, help="output folder (default: tcpstart-out/SCENARIO)")
    p.add_argument("--packets", action="store_true", help="record every packet event (packets.parquet)")
    p.add_argument(
        "--pcap", type=_links, action="extend", metavar="LINK[,LINK]",
        help="write LINK.pcap, e.g. bottleneck or bottleneck,sender0_out (repeatable)",
    )
    p.set_defaults(func=cmd_run)

    p = add("plot", "draw cwnd, inflight, rtt, seq and queue figures of a result folder", ['tcpstart plot out/newreno', 'tcpstart plot out/newreno --format pdf,svg'])
    p.add_argument("dir", metavar="DIR", help="a result folder (tcpstart run --out DIR, Result.save)")
    p.add_argument(
        "--format", default="png", metavar="FMT[,FMT]",
        help="figure formats, comma-separated: png, pdf, svg (default: %(default)s)",
    )
    p.set_defaults(func=cmd_plot)

    p = add("algorithms", "list the congestion-control algorithms and their parameters", ['tcpstart algorithms', 'tcpstart algorithms jump-start', 'tcpstart algorithms --json'])
    p.add_argument("name", nargs="?", metavar="NAME", help="one algorithm, with its parameters in full")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.set_defaults(func=cmd_algorithms)

    p = add("reproduce", "rerun a paper's experiments and compare with its numbers", ['tcpstart reproduce jump-start --quick', 'tcpstart reproduce all --out docs/reproductions'])
    p.add_argument("name", metavar="NAME", help=f"{', '.join(reproduce_names())} or all")
    p.add_argument("--out", metavar="DIR", type=_folder, help="parent folder of the reports (default: tcpstart-out/reproduce)")
    p.add_argument("--quick", action="store_true", help="smoke test: fewer seeds and points, verdicts not shown")
    p.add_argument("--store", metavar="DIR", type=_folder, help="keep the measured runs here, so that a rerun simulates only what is missing (default: none kept)")
    p.add_argument("--rerun", action="store_true", help="with --store: simulate every run again")
    p.add_argument("--backend", choices=["local", "ray"], default="local", help="where runs are simulated (default: %(default)s)")
    p.add_argument("--address", help="with --backend ray: the cluster's address (default: a local Ray instance)")
    p.set_defaults(func=cmd_reproduce)

    p = add("bench", "measure simulator speed and memory on the reference benchmarks", ['tcpstart bench B1', 'tcpstart bench B1 B2 --ns3', 'tcpstart bench B5 --runs 2000'])
    p.add_argument("names", nargs="*", metavar="NAME", help="B1 B2 B3 B4 B5 (default: all)")
    p.add_argument("--duration", help="simulated time instead of each benchmark's own (e.g. 300s)")
    p.add_argument("--runs", type=int, default=1000, help="B5: number of small runs (default: %(default)s)")
    p.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="B1-B4: runs of each (with --ns3, this many before ns-3's run and as many after it), "
        "reporting the median wall time and the highest RSS (default: %(default)s)",
    )
    p.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    p.add_argument("--ns3", action="store_true", help="also run B1-B4 in ns-3 3.44 (pip install ns3==3.44.post0)")
    p.set_defaults(func=cmd_bench)

    p = add("benchmark", "rank start-up algorithms on the path presets: completion, loss, delay, harm to CUBIC", ['tcpstart benchmark --quick', 'tcpstart benchmark --out docs/benchmark', 'tcpstart benchmark --algos cubic,cubic+suss --paths geo-satellite,leo-satellite --sizes 30KB,1MB'])
    p.add_argument("--scenarios", metavar="DIR", default="scenarios", help="folder of the path-*.toml presets (default: %(default)s)")
    p.add_argument("--paths", help="presets by name, comma-separated, e.g. geo-satellite,leo-satellite (default: all)")
    p.add_argument("--algos", help=f"algorithms, comma-separated (default: {','.join(startup_benchmark.ALGORITHMS)})")
    p.add_argument("--sizes", help=f"transfer sizes, comma-separated (default: {','.join(startup_benchmark.SIZES)})")
    p.add_argument("--replications", type=int, help=f"runs per cell, each starting a fraction of an RTT later (default: {startup_benchmark.REPLICATIONS})")
    p.add_argument("--quick", action="store_true", help="smoke test: two paths, two algorithms, one size, one replication (options given still apply)")
    p.add_argument("--workers", type=int, help="threads (default: one per core)")
    p.add_argument("--out", metavar="DIR", type=_folder, help="output folder (default: tcpstart-out/benchmark)")
    p.add_argument("--store", metavar="DIR", type=_folder, help="keep the measured runs here, so that a rerun simulates only what is missing (default: none kept)")
    p.add_argument("--rerun", action="store_true", help="with --store: simulate every run again")
    p.add_argument("--backend", choices=["local", "ray"], default="local", help="where runs are simulated (default: %(default)s)")
    p.add_argument("--address", help="with --backend ray: the cluster's address (default: a local Ray instance)")
    p.set_defaults(func=cmd_benchmark)

    p = add(
        "validate",
        "check a scenario file and print it as TOML with every default filled in, in user units; `run` reads it as the same scenario",
        ["tcpstart validate scenarios/lossy-link.toml > resolved.toml", "tcpstart run resolved.toml --out out/resolved"],
    )
    p.add_argument("scenario", metavar="SCENARIO", help="a scenario file: TOML, or a result folder's scenario.json")
    p.set_defaults(func=cmd_validate)

    add_crosscheck_command(commands)
    add_sweep_command(commands)
    add_testbed_command(commands)
    return parser


def _list(text: Optional[str]) -> Optional[list[str]]:
    return [x.strip() for x in text.split(",") if x.strip()] if text else None


def cmd_benchmark(args: argparse.Namespace) -> int:
    quick = startup_benchmark.QUICK if args.quick else {}
    replications = args.replications if args.replications is not None else quick.get("replications", startup_benchmark.REPLICATIONS)
    if replications < 1:
        raise ValueError(f"--replications: must be at least 1, got {replications}")
    algos = _list(args.algos) or list(quick.get("algos") or startup_benchmark.ALGORITHMS)
    known = {a["name"] for a in algorithms()}
    for a in algos:
        if a not in known:
            raise ValueError(f"--algos: unknown algorithm {a!r}; see tcpstart algorithms")
    sizes = _list(args.sizes) or list(quick.get("sizes") or startup_benchmark.SIZES)
    for z in sizes:
        startup_benchmark.size_bytes(z)
    paths = startup_benchmark.load_paths(Path(args.scenarios), _list(args.paths) or quick.get("paths"))
    out = Path(args.out or "tcpstart-out/benchmark")
    check_output_folder(out)
    series: dict[Any, Any] = {}
    with measuring(store=args.store, backend=args.backend, address=args.address, workers=args.workers, rerun=args.rerun):
        rows = startup_benchmark.run_benchmark(paths, algos, sizes, replications, series=series)
    command = "tcpstart " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:2] == ["benchmark"] else "tcpstart benchmark"
    with atomic_directory(out) as tmp:
        board = startup_benchmark.write_outputs(tmp, rows, command, series)
    print(startup_benchmark.markdown_table(board, startup_benchmark.BOARD_COLUMNS), end="")
    print(f"{len(rows)} runs ({len(paths)} paths x {len(algos)} algorithms x {len(sizes)} sizes x {replications} replications, alone and against CUBIC); leaderboard.md, leaderboard.html, cells.csv, runs.csv and figures/ in {out}")
    return 0


def _describe(e: Exception) -> str:
    if isinstance(e, OSError) and e.filename is not None and e.strerror:
        return f"{e.filename}: {e.strerror}"
    return " ".join(str(e).split())


def _load_controllers(path: str) -> None:
    """Runs a Python file for its ts.register calls."""
    if not Path(path).is_file():
        raise ValueError(f"--controllers: no such file: {path}")
    runpy.run_path(path, run_name="tcpstart_controllers")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(_glue_negative_values(sys.argv[1:] if argv is None else argv))
    except SystemExit as e:  # usage errors and --help; argparse has printed its message
        return e.code if isinstance(e.code, int) else 2
    try:
        for path in (args.controllers or "").split(","):
            if path.strip():
                _load_controllers(path.strip())
        return args.func(args)
    except BrokenPipeError:
        # The reader went away (`tcpstart algorithms | head`): stop quietly, as other tools do.
        # Python would report the pipe again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except ControllerError as e:
        # The controller's own traceback first, as Python shows a chained exception.
        if e.__cause__ is not None:
            traceback.print_exception(e.__cause__, file=sys.stderr)
        print(f"tcpstart: error: {e}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as e:
        print(f"tcpstart: error: {_describe(e)}", file=sys.stderr)
        return 2
    except InvariantError as e:
        print(f"tcpstart: error: {_describe(e)}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        print("tcpstart: interrupted", file=sys.stderr)
        return 130


def command() -> None:
    """The `tcpstart` command: `main`, then the process's exit. After a Ctrl-C the process ends
    at once: what the interrupted work held (an interrupted reproduction: seconds of freeing) is
    the operating system's to reclaim, and everything tcpstart cleans up (temporary folders,
    partial results) was cleaned up while the interrupt unwound."""
    code = main()
    if code == 130:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
