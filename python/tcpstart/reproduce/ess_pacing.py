"""ESS paced: the set-up alternative to our unpaced ESS, which the paper leaves open.

The paper names no pacing, and ns-3's TCP, its simulator, paces only with
`TcpSocketState::EnablePacing` (off by default), so the report's ESS is unpaced: at its first cycle
end it raises the window to about the BDP and the ACK clock releases the difference at the 1 Gbps
access rate. With `EnablePacing` ns-3 paces a socket at `PacingSsRatio` (200 %) x
max(cwnd, inflight) / latest RTT while cwnd < ssthresh / 2, and at `PacingCaRatio` (120 %) after;
ESS's `pacing_ss_ratio` does the same (docs/algorithms/ess.md). Two alternatives: ns-3's default
ratio (2), and 1, which spreads the jump over one RTT at the window's own rate.

Only ESS's runs change: every claim is graded again with them in place of the report's, beside
the other algorithms' own runs (in ns-3 `EnablePacing` would pace NewReno and CUBIC too; our
NewReno and CUBIC do not pace, and BBR paces itself either way). The queue is the report's.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from tcpstart.batch import run_many
from tcpstart.reproduce import ess
from tcpstart.reproduce.report import Choice, Report, Table, Verdict
from tcpstart.scenario import Scenario

# Alternative -> ESS's `pacing_ss_ratio`.
PACED = {"paced, ns-3's 2x in slow start": 2.0, "paced, 1x in slow start": 1.0}


def scenario(path: Any, duration: float, ratio: float) -> Scenario:
    """The report's ESS run on `path`, paced at `ratio` in slow start."""
    sc = ess._scenario(path, "ess", duration)
    return dataclasses.replace(sc, flows=[dataclasses.replace(f, params={"pacing_ss_ratio": ratio}) for f in sc.flows])


def measure(duration: float) -> dict[str, dict[Any, dict]]:
    """Per alternative, ESS's start-up metrics per path (`ess._metrics`)."""
    keys = [(alt, p) for alt in PACED for p in ess.PATHS]
    results = run_many([scenario(p, duration, PACED[alt]) for alt, p in keys], progress="ess: paced ESS")
    out: dict[str, dict[Any, dict]] = {alt: {} for alt in PACED}
    for (alt, p), r in zip(keys, results):
        out[alt][p] = ess._metrics(p, r)
    return out


def _tally(vs: list[Verdict]) -> str:
    return f"{vs.count(Verdict.REPRODUCED)} reproduced / {vs.count(Verdict.TREND)} trend / {vs.count(Verdict.NOT)} not"


def run(report: Report, duration: float, metrics: dict) -> None:
    """`metrics`: the report's runs, keyed (path, algorithm)."""
    ours = [(c.source, c.statement, c.verdict) for c in report.claims if c.verdict.counted]
    paced = measure(duration)
    grades = {}
    for alt, runs in paced.items():
        swapped = {**metrics, **{(p, "ess"): m for p, m in runs.items()}}
        scratch = Report("scratch", "", "", "", quick=False)
        ess._claims(scratch, swapped)
        grades[alt] = [c.verdict for c in scratch.claims if c.verdict.counted]
        assert [c.statement for c in scratch.claims if c.verdict.counted] == [s for _, s, _ in ours]
        report.data[f"ess_paced_{PACED[alt]:g}x"] = [{"path": p.label, **m} for p, m in runs.items()]
    changed = [
        f"'{statement}': {verdict.value} -> "
        + ", ".join(f"{grades[alt][k].value} ({alt.split(', ')[1]})" for alt in PACED)
        for k, (_, statement, verdict) in enumerate(ours)
        if any(grades[alt][k] is not verdict for alt in PACED)
    ]
    unpaced = [metrics[(p, "ess")] for p in ess.PATHS]

    def described(rows: list[dict]) -> str:
        return (
            f"ESS losses {', '.join(str(m['losses']) for m in rows)}, exit window "
            f"{min(m['exit_over_best'] for m in rows):.2f}-{max(m['exit_over_best'] for m in rows):.2f} x cwnd_best"
        )

    report.choices.append(
        Choice(
            "Pacing of ESS's jump to cwnd_max",
            f"none: the larger window leaves as fast as the ACKs clock it out (ESS as specified; {described(unpaced)})",
            "the paper names no pacing, and ns-3's TCP paces only when `TcpSocketState::EnablePacing` is set (off "
            "by default)",
            "; ".join(
                f"{alt} (`pacing_ss_ratio = {PACED[alt]:g}`): {_tally(grades[alt])} ({described(list(paced[alt].values()))})"
                for alt in PACED
            )
            + f"; unpaced: {_tally([v for _, _, v in ours])}, at the {ess.QUEUE} queue. "
            + ("Verdicts that change: " + "; ".join(changed) if changed else "No verdict changes"),
        )
    )
    if report.quick:
        return
    report.tables.append(
        Table(
            f"Every claim with ESS paced (the paper names no pacing; {ess.QUEUE} queue)",
            ["claim", "unpaced", *PACED],
            [
                [f"{source}: {statement}", verdict.value] + [grades[alt][k].value for alt in PACED]
                for k, (source, statement, verdict) in enumerate(ours)
            ],
        )
    )
