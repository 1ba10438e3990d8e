"""eHSTCP's Table 1 again with the base RTT, the run length and the web load the paper leaves open.

Section 3 names none of the three. Ours: a 40 ms base RTT for every flow (Table 2's short flow),
runs of the mode's length graded after its warm-up, and 50 web sessions (Jump Start's model).
Each alternative changes one of them and reruns Table 1's 2.5 Gbps runs of the four protocols
for the first seed only: all twelve runs of six alternatives are about 3000 s of CPU, beyond what
the full mode can spend. Table 1's claims are graded on them and, for the comparison, on the
report's own runs of that seed; the verdicts that change between the two are tabulated
(ehstcp_queue does the same for the buffer with every seed). With one seed no difference is
outside a run-to-run spread, so "lowest loss" and "best stability" cannot pass in either column:
those two verdicts are not tested by this sweep.

The buffer stays one BDP of the path, so with another base RTT it scales with it (the rule, not
the packet count, is our choice). Shorter and longer runs keep the warm-up and halve or double
the graded window after it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Optional

from tcpstart.reproduce import ehstcp
from tcpstart.reproduce.report import Choice, Report, Table, Verdict
from tcpstart.results import Result
from tcpstart.scenario import Scenario


@dataclass(frozen=True)
class Variant:
    """One set-up change from the report's (None: the report's): a base RTT, a run length (the
    graded window after the warm-up, as a multiple of the mode's), or a number of web sessions
    (0: no web traffic)."""

    rtt: Optional[str] = None
    length_factor: float = 1.0
    web_sessions: Optional[int] = None
    # The high-speed flows' receive buffer: at 120 ms a 2.5 Gbps path and its 1-BDP buffer hold
    # 75 MB, more than the report's 64 MB.
    rcv_buf: Optional[str] = None


# Per open parameter, the report's choice and the alternatives, each on both sides of it. Four
# times the web sessions would need about 5 GB per 2.5 Gbps run (one connection per web object).
# The runs are listed cheapest first, so that an interrupted sweep (resumed from the store) has
# the most alternatives done.
BASE_RTT = {"20ms": Variant(rtt="20ms"), "120ms": Variant(rtt="120ms", rcv_buf="160MB")}
RUN_LENGTH = {"half the graded window": Variant(length_factor=0.5), "twice the graded window": Variant(length_factor=2.0)}
WEB_LOAD = {"no web traffic": Variant(web_sessions=0), "2x the web sessions (100)": Variant(web_sessions=100)}
PARAMETERS = {"Web load": WEB_LOAD, "Run length": RUN_LENGTH, "Base RTT": BASE_RTT}


def duration(mode: Any, variant: Variant) -> float:
    """The run's length: the warm-up, then the graded window scaled by the variant."""
    return mode.warmup + (mode.duration - mode.warmup) * variant.length_factor


def scenario(mode: Any, variant: Variant, algorithm: str, seed: int, length: float) -> Scenario:
    """Table 1's scenario for `algorithm` with `variant` applied, run for `length` seconds of a run
    `duration(mode, variant)` long (which fixes the web pages drawn)."""
    sc = ehstcp._scenario(ehstcp.TABLE1_RATE, algorithm, seed, duration(mode, variant), length)
    if variant.web_sessions == 0:
        web = []
    elif variant.web_sessions is not None:
        web = [dataclasses.replace(w, sessions=variant.web_sessions) for w in sc.web]
    else:
        web = sc.web
    flows = [
        dataclasses.replace(f, tcp=dataclasses.replace(f.tcp, rcv_buf=variant.rcv_buf))
        if f.class_ == "hs" and variant.rcv_buf and f.tcp is not None
        else f
        for f in sc.flows
    ]
    network = dataclasses.replace(sc.network, rtt=variant.rtt) if variant.rtt else sc.network
    return dataclasses.replace(sc, network=network, flows=flows, web=web)


def sweep_mode(mode: Any) -> Any:
    """`mode` with the seeds the sweep runs."""
    return dataclasses.replace(mode, seeds=mode.seeds[:1])


def measure(mode: Any) -> dict[tuple[str, str], dict[tuple[float, str, int], dict]]:
    """Per (parameter, alternative): Table 1's runs for `mode`'s seeds in the form
    `ehstcp._table1` reads, keyed (rate, protocol, seed), each with the utilization, loss and
    stability over the window after the warm-up."""

    def reduce(key: tuple[str, str, str, int], results: list[Result]) -> dict:
        full, warm = results
        end = duration(mode, PARAMETERS[key[0]][key[1]])
        m = ehstcp._window(full, warm, end, mode.warmup)
        m["norm_std"] = ehstcp.normalized_std(full, (0, 1), mode.warmup, end, ehstcp.STABILITY_BIN)
        del m["goodput_bps"]
        return m

    keys = [
        (param, alt, label, seed)
        for param, alternatives in PARAMETERS.items()
        for alt in alternatives
        for label in ehstcp.LABELS
        for seed in mode.seeds
    ]
    groups = []
    for param, alt, label, seed in keys:
        variant = PARAMETERS[param][alt]
        lengths = (duration(mode, variant), mode.warmup)
        runs = [scenario(mode, variant, ehstcp.ALGORITHMS[label], seed, length) for length in lengths]
        groups.append(((param, alt, label, seed), runs))
    out = ehstcp._measure_batched(groups, reduce, "ehstcp: Table 1, base RTT, run length and web load")
    shared: dict[tuple[str, str], dict] = {}
    for (param, alt, label, seed), m in out.items():
        shared.setdefault((param, alt), {})[(ehstcp.TABLE1_RATE, label, seed)] = {**m, "hs_throughput": None}
    return shared


def grade(mode: Any, shared: dict) -> dict[tuple[str, str], Verdict]:
    """Table 1's counted claims graded on `shared` (by source and statement)."""
    scratch = Report("scratch", "", "", "", quick=False)
    ehstcp._table1(scratch, shared, mode)
    return {(c.source, c.statement): c.verdict for c in scratch.claims if c.verdict.counted}


def tally(verdicts: list[Verdict]) -> str:
    return (
        f"{verdicts.count(Verdict.REPRODUCED)} reproduced / {verdicts.count(Verdict.TREND)} trend / "
        f"{verdicts.count(Verdict.NOT)} not"
    )


def _means(mode: Any, shared: dict, key: str) -> dict[str, float]:
    return {
        label: sum(shared[(ehstcp.TABLE1_RATE, label, s)][key] for s in mode.seeds) / len(mode.seeds)
        for label in ehstcp.LABELS
    }


def _ours(param: str, mode: Any) -> str:
    return {
        "Base RTT": f"{ehstcp.BASE_RTT} (buffer 1 BDP of it, receive buffer {ehstcp.HS_RCV_BUF})",
        "Run length": f"{mode.duration:g} s, metrics after {mode.warmup:g} s",
        "Web load": "50 sessions, 2 pages per session-second",
    }[param]


WHY = {
    "Base RTT": "none is in the paper; 40 ms is Table 2's short flow; every Table 1 flow has it and the buffer "
    "is one BDP of it",
    "Run length": "the paper gives no duration or warm-up; {length:g} s with a {warmup:g} s warm-up holds "
    "several loss cycles of every protocol at 2.5 Gbps and keeps the full mode near ten minutes of two cores",
    "Web load": "the paper gives no web parameters; Jump Start's model (50 sessions, 2 pages per session-second) "
    "carries about 0.6 % of the 2.5 Gbps forward goodput",
}


def run(report: Report, shared_ours: dict, mode: Any) -> None:
    """`shared_ours`: the report's Table 1 runs (`ehstcp._run_shared`)."""
    full = {(c.source, c.statement): c.verdict for c in report.claims if c.source.endswith("Table 1") and c.verdict.counted}
    mode = sweep_mode(mode)
    ours = grade(mode, {k: v for k, v in shared_ours.items() if k[0] == ehstcp.TABLE1_RATE and k[2] in mode.seeds})
    shared = measure(mode)
    grades = {k: grade(mode, s) for k, s in shared.items()}
    seeds = ", ".join(map(str, mode.seeds))
    for param, alternatives in PARAMETERS.items():
        changed = [k for k, v in ours.items() if any(grades[(param, alt)][k] is not v for alt in alternatives)]
        # The choice's text is withheld in a smoke test by Report; the verdicts here are left out too.
        report.choices.append(
            Choice(
                param,
                _ours(param, mode),
                WHY[param].format(length=mode.duration, warmup=mode.warmup),
                "; ".join(
                    f"{alt} ({_described(mode, PARAMETERS[param][alt])}): Table 1 "
                    f"{tally(list(grades[(param, alt)].values()))} (utilization "
                    + ", ".join(f"{label} {u:.3f}" for label, u in _means(mode, shared[(param, alt)], "utilization").items())
                    + ")"
                    for alt in alternatives
                )
                + f"; ours: {tally(list(ours.values()))}, all on seed {seeds} only. "
                + (
                    f"{len(changed)} of {len(ours)} Table 1 verdicts change with it: see the table"
                    if changed
                    else f"none of the {len(ours)} Table 1 verdicts changes"
                ),
            )
        )
    report.data["table1_setup_sensitivity_seeds"] = list(mode.seeds)
    report.data["table1_setup_sensitivity"] = {
        f"{param}: {alt}": {
            "claims": len(grades[(param, alt)]),
            "verdicts": None
            if report.quick
            else {f"{k[0]}: {k[1]}": v.value for k, v in grades[(param, alt)].items()},
            "utilization": _means(mode, shared[(param, alt)], "utilization"),
            "loss_percent": _means(mode, shared[(param, alt)], "loss_percent"),
            "norm_std": _means(mode, shared[(param, alt)], "norm_std"),
        }
        for param, alternatives in PARAMETERS.items()
        for alt in alternatives
    }
    if report.quick:
        return
    columns = [(param, alt) for param, alternatives in PARAMETERS.items() for alt in alternatives]
    report.tables.append(
        Table(
            f"Table 1's claims with another base RTT, run length or web load (the paper gives none), seed {seeds}",
            ["claim", "ours, all seeds", f"ours, seed {seeds}"] + [alt for _, alt in columns],
            [
                [f"{source}: {statement}", full[(source, statement)].value, verdict.value]
                + [grades[c][(source, statement)].value for c in columns]
                for (source, statement), verdict in ours.items()
            ],
        )
    )


def _described(mode: Any, variant: Variant) -> str:
    if variant.length_factor != 1.0:
        return f"{duration(mode, variant):g} s"
    if variant.web_sessions is not None:
        return f"{variant.web_sessions} sessions"
    return f"buffer 1 BDP of it, receive buffer {variant.rcv_buf or ehstcp.HS_RCV_BUF}"
