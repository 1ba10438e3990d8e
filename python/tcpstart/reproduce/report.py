"""A reproduction report: the paper's numbers, ours, the difference and a status per item.

The paper's numbers are typed in from the paper and cited by table or figure; ours are computed by
simulation. A status is derived from the two by a rule stated with the item, never typed in.

Three kinds of item, kept apart because only the first says anything about the simulation:
- a *reproduction verdict* compares an independent outcome of the simulation with the paper's
  (reproduced / reproduced in trend only / not reproduced); only these are counted in the tallies;
- a *consistency check* compares our inputs, or a formula of them, with the paper's (the paper's
  arithmetic, a calibrated RTT, a rate fixed by the link): worth showing, never counted;
- an item *out of scope* names a table, figure or claim we do not run, with the reason.

The grading rules (`judge_values`, `judge_effect`, `direction`) never let a sign or a rank alone
pass: "in trend" needs the direction and the magnitude within a band stated per claim, and a
difference inside the run-to-run spread (or below a stated resolution for deterministic runs) is
"no difference", never agreement with "higher" or "lower".
"""

from __future__ import annotations

import enum
import json
import math
import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import markdown

from tcpstart._files import atomic_directory
from tcpstart.provenance import describe, provenance


class Verdict(str, enum.Enum):
    REPRODUCED = "reproduced"
    TREND = "reproduced in trend only"
    NOT = "not reproduced"
    CONSISTENT = "consistency check: consistent"
    INCONSISTENT = "consistency check: inconsistent"
    OUT_OF_SCOPE = "out of scope"

    @property
    def counted(self) -> bool:
        """Only reproduction verdicts count in the tallies."""
        return self in (Verdict.REPRODUCED, Verdict.TREND, Verdict.NOT)


COUNTED = (Verdict.REPRODUCED, Verdict.TREND, Verdict.NOT)


@dataclass
class Value:
    """One number the paper reports, next to ours. The paper may give a range (`paper_range`, either
    end open as None) instead of a number; it is then compared as a range, never by its midpoint."""

    label: str
    paper: Optional[float]
    ours: Optional[float]
    unit: str = ""
    # Spread of ours over seeds: a 95 % confidence interval of the mean, or (min, max); see `spread_kind`.
    spread: Optional[tuple[float, float]] = None
    paper_range: Optional[tuple[Optional[float], Optional[float]]] = None
    spread_kind: str = "min-max"

    @property
    def difference(self) -> Optional[float]:
        """Ours relative to the paper's: (ours - paper) / |paper|; against a range, the distance to its
        nearer end relative to that end (0 inside the range)."""
        if self.ours is None:
            return None
        if self.paper_range is not None:
            lo, hi = self.paper_range
            if lo is not None and self.ours < lo:
                return None if lo == 0 else (self.ours - lo) / abs(lo)
            if hi is not None and self.ours > hi:
                return None if hi == 0 else (self.ours - hi) / abs(hi)
            return 0.0
        if self.paper is None or self.paper == 0:
            return None
        return (self.ours - self.paper) / abs(self.paper)

    def within_factor(self, band: float) -> Optional[bool]:
        """Ours has the paper's sign and lies within a factor `band` of its number (or of its range)."""
        if self.ours is None:
            return None
        lo, hi = self.paper_range if self.paper_range is not None else (self.paper, self.paper)
        if lo is None and hi is None:
            return None
        ref = lo if lo is not None else hi
        assert ref is not None
        if ref == 0 or self.ours == 0 or (self.ours > 0) != (ref > 0):
            return False
        a = abs(self.ours)
        lo_abs = None if lo is None else abs(lo)
        hi_abs = None if hi is None else abs(hi)
        if lo_abs is not None and hi_abs is not None and lo_abs > hi_abs:
            lo_abs, hi_abs = hi_abs, lo_abs
        return (lo_abs is None or a >= lo_abs / band) and (hi_abs is None or a <= hi_abs * band)

    def paper_text(self) -> str:
        if self.paper_range is None:
            return _fmt(self.paper)
        lo, hi = self.paper_range
        if hi is None:
            return f"≥ {_fmt(lo)}"
        if lo is None:
            return f"≤ {_fmt(hi)}"
        return f"{_fmt(lo)} to {_fmt(hi)}"


@dataclass
class Claim:
    """A statement of the paper, checked against our simulation (or our inputs, for a check)."""

    source: str
    """Where the paper says it: "Table 2", "Figure 4", "Section 4.1"."""
    statement: str
    values: list[Value]
    verdict: Verdict
    reason: str
    """Why the status is what it is, and the model difference where ours and theirs differ."""


@dataclass
class Choice:
    """A parameter the paper leaves open: what we chose, why, and what the alternatives give."""

    parameter: str
    choice: str
    why: str
    sensitivity: str
    """The sensitivity run over the plausible alternatives, and which verdicts change with them."""


def judge_values(
    values: Sequence[Value], tolerance: float, what: str, band: float, series: bool = True
) -> tuple[Verdict, str]:
    """Reproduced when every number is within `tolerance` (relative) of the paper's, or inside its
    range. In trend when every number has the paper's sign and lies within a factor `band` of it (or
    of its range) and, for a `series` of three or more points of one quantity, ours rise and fall
    with the paper's (rank correlation at least 0.8). Otherwise not reproduced."""
    if band <= 1:
        raise ValueError(f"band must be a factor above 1, got {band}")
    compared = [v for v in values if v.ours is not None and (v.paper is not None or v.paper_range is not None)]
    if not compared:
        return Verdict.NOT, f"no {what} to compare"
    diffs = [abs(v.difference) for v in compared if v.difference is not None]
    worst = max(diffs) if len(diffs) == len(compared) else math.inf
    worst_text = "unbounded" if math.isinf(worst) else f"{worst:.1%}"
    if worst <= tolerance:
        if tolerance == 0:
            return Verdict.REPRODUCED, f"every one of the {what} inside the paper's range"
        return Verdict.REPRODUCED, f"every one of the {what} within {tolerance:.0%} of the paper's (worst {worst_text})"
    outside = [v for v in compared if not v.within_factor(band)]
    points = [(v.paper, v.ours) for v in compared if v.paper is not None and v.ours is not None]
    ranked = series and len(points) >= 3
    rho = rank_correlation([p for p, _ in points], [o for _, o in points]) if ranked else None
    if ranked and (rho is None or rho < 0.8):
        return Verdict.NOT, f"{what} differ by up to {worst_text} and do not follow the paper's order (rank correlation {_rho(rho)})"
    if outside:
        return Verdict.NOT, (
            f"{len(outside)} of {len(compared)} {what} are outside a factor {band:g} of the paper's "
            f"(worst difference {worst_text}, e.g. {outside[0].label})"
        )
    order = f", rank correlation {rho:.2f}" if rho is not None else ""
    return Verdict.TREND, f"{what} within a factor {band:g} of the paper's{order}, but differ by up to {worst_text}"


def judge_effect(
    ours: Optional[float],
    paper: Value | float,
    tolerance: float,
    band: float,
    noise: float,
    what: str,
) -> tuple[Verdict, str]:
    """For an effect: a signed quantity that is 0 when there is none (a gain, a difference, the log of
    a ratio). No difference (|ours| within `noise`: the run-to-run spread, or the resolution stated
    for a deterministic run) is not reproduced whatever the paper's sign. Reproduced within
    `tolerance` of the paper's effect (or inside its range); in trend with the paper's sign and
    within a factor `band` of it; otherwise not reproduced."""
    if band <= 1:
        raise ValueError(f"band must be a factor above 1, got {band}")
    target = paper if isinstance(paper, Value) else Value(what, paper, ours)
    target = Value(target.label, target.paper, ours, target.unit, paper_range=target.paper_range)
    if ours is None:
        return Verdict.NOT, f"no {what} measured"
    if abs(ours) <= noise:
        return Verdict.NOT, f"no difference: our {what} {ours:+.3g} is within the noise ±{noise:.3g}"
    d = target.difference
    if d is not None and abs(d) <= tolerance:
        return Verdict.REPRODUCED, f"our {what} {ours:.3g} is within {tolerance:.0%} of the paper's {target.paper_text()}"
    if target.within_factor(band):
        return Verdict.TREND, f"our {what} {ours:.3g} has the paper's sign and is within a factor {band:g} of {target.paper_text()}"
    return Verdict.NOT, f"our {what} {ours:.3g} against the paper's {target.paper_text()}: outside a factor {band:g}"


def judge_ratio(
    ratio: Optional[float], paper: tuple[float, Optional[float]], band: float, noise: float, what: str
) -> tuple[Verdict, str]:
    """For a ratio claim ("more than twice", "about twice" read as a range of ratios, upper end open
    or not): reproduced inside the range; in trend when the effect (the log of the ratio) has the
    paper's sign, is at least 1/`band` of the lower end's and the ratio at most `band` times the
    upper end; no difference when |log ratio| is within `noise`. So with band 2, "more than twice"
    is not in trend at 1.09x (a tenth of the effect) and "about twice" (1.5-3) not at 8.6x."""
    lo, hi = paper
    if ratio is None or ratio <= 0:
        return Verdict.NOT, f"no {what}"
    eff = math.log(ratio)
    span = f"{lo:g} to {hi:g}" if hi is not None else f"over {lo:g}"
    if abs(eff) <= noise:
        return Verdict.NOT, f"no difference: {what} {ratio:.3g} (log within the noise ±{noise:.3g}); the paper's {span}"
    if lo <= ratio and (hi is None or ratio <= hi):
        return Verdict.REPRODUCED, f"{what} {ratio:.3g} inside the paper's {span}"
    lo_eff = math.log(lo)
    same_sign = (eff > 0) == (lo_eff > 0) if lo_eff != 0 else True
    big_enough = abs(eff) >= abs(lo_eff) / band
    not_too_big = hi is None or ratio <= hi * band
    if same_sign and big_enough and not_too_big:
        return Verdict.TREND, f"{what} {ratio:.3g} outside the paper's {span} but within the band (factor {band:g})"
    return Verdict.NOT, f"{what} {ratio:.3g} against the paper's {span}: outside the band (factor {band:g})"


def ratio_effect(ratio: Optional[float]) -> Optional[float]:
    """A ratio as an effect: log(ratio), 0 when the two are equal, so "twice" and "half" weigh alike
    and a factor band on it bounds the ratio's distance from 1."""
    return None if ratio is None or ratio <= 0 else math.log(ratio)


class Direction(str, enum.Enum):
    HIGHER = "higher"
    LOWER = "lower"
    SAME = "no difference"


def direction(
    a: float | Sequence[float], b: float | Sequence[float], resolution: float = 0.0
) -> tuple[Direction, str]:
    """Is `a` higher than `b`? With seeds (sequences, paired by seed) the mean paired difference
    must have a 95 % confidence interval that excludes 0 (one seed has none: no difference); with
    one deterministic run each, the relative difference must exceed `resolution`. Otherwise: no
    difference."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        rel = (a - b) / abs(b) if b else (math.inf if a > b else -math.inf if a < b else 0.0)
        if abs(rel) <= resolution:
            return Direction.SAME, f"{rel:+.1%}, within the resolution ±{resolution:.0%}"
        return (Direction.HIGHER if rel > 0 else Direction.LOWER), f"{rel:+.1%}"
    xs, ys = list(a), list(b)  # type: ignore[arg-type]
    if len(xs) != len(ys) or not xs:
        raise ValueError("direction: paired samples need the same, non-zero length")
    if len(xs) == 1:
        return Direction.SAME, "one seeded run: no spread to tell a difference from"
    mean, lo, hi = mean_ci([x - y for x, y in zip(xs, ys)])
    scale = abs(statistics.mean(ys)) or 1.0
    text = f"{mean / scale:+.1%} (95 % CI {lo / scale:+.1%} to {hi / scale:+.1%}, {len(xs)} seeds)"
    if lo <= 0 <= hi or abs(mean) <= resolution * scale:
        return Direction.SAME, text
    return (Direction.HIGHER if mean > 0 else Direction.LOWER), text


# Two-sided 95 % Student t quantiles by degrees of freedom (1-30); 1.96 beyond.
_T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def mean_ci(xs: Sequence[float]) -> tuple[float, float, float]:
    """Mean and its two-sided 95 % confidence interval (Student t); a single value has none (±inf)."""
    n = len(xs)
    if n == 0:
        raise ValueError("mean_ci of no values")
    m = statistics.fmean(xs)
    if n == 1:
        return m, -math.inf, math.inf
    t = _T95[n - 2] if n - 1 <= len(_T95) else 1.96
    h = t * statistics.stdev(xs) / math.sqrt(n)
    return m, m - h, m + h


def judge(holds: bool, trend: bool, because: str) -> tuple[Verdict, str]:
    """For a qualitative claim: it holds, holds only in part (the caller states which part and why
    that part is not a sign alone), or not."""
    if holds:
        return Verdict.REPRODUCED, because
    if trend:
        return Verdict.TREND, because
    return Verdict.NOT, because


def _rho(x: Optional[float]) -> str:
    return "undefined" if x is None else f"{x:.2f}"


def rank_correlation(a: Sequence[float], b: Sequence[float]) -> Optional[float]:
    """Spearman's rho (average ranks for ties); None when either side is constant."""
    if len(a) != len(b) or len(a) < 2:
        return None
    ra, rb = _ranks(a), _ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra)
    vb = sum((y - mb) ** 2 for y in rb)
    if va == 0 or vb == 0:
        return None
    return cov / math.sqrt(va * vb)


def _ranks(xs: Sequence[float]) -> list[float]:
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    ranks = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2
        i = j + 1
    return ranks


def save_figure(fig: Any, path: Path, title: str, dpi: int = 120) -> None:
    """Titles a matplotlib figure, writes it to `path` and frees it."""
    import matplotlib.pyplot as plt

    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


@dataclass
class Figure:
    file: str
    caption: str
    draw: Callable[[Path], None] = field(repr=False, compare=False)
    """Writes the PNG to the path it is given."""


@dataclass
class Table:
    """A table of our numbers (no verdict), e.g. per-path metrics the paper only plots."""

    title: str
    columns: list[str]
    rows: list[list[Any]]


SMOKE_TEST = (
    "**Smoke test** (`--quick`: fewer seeds, points or seconds). It checks that every experiment "
    "runs and computes its numbers; its verdicts are not shown, because they need not be the full "
    "run's. Run without `--quick` for the verdicts."
)


@dataclass
class Report:
    name: str
    title: str
    citation: str
    setup: str
    """The networks and settings we ran, in the report's words (markdown)."""
    quick: bool
    claims: list[Claim] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    choices: list[Choice] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Interpretations and model differences that apply to the whole report."""
    data: dict[str, Any] = field(default_factory=dict)
    """Every number the report shows, for results.json."""
    made_by: dict[str, Any] = field(default_factory=provenance)
    """Which tcpstart ran the experiments, and when and where (tcpstart.provenance)."""

    def add(self, source: str, statement: str, values: list[Value], verdict: tuple[Verdict, str]) -> Claim:
        """A reproduction verdict: an independent outcome of our simulation against the paper's."""
        if not verdict[0].counted:
            raise ValueError(f"add() takes a reproduction verdict, got {verdict[0].value!r}")
        claim = Claim(source, statement, values, verdict[0], verdict[1])
        self.claims.append(claim)
        return claim

    def check(self, source: str, statement: str, values: list[Value], consistent: bool, reason: str) -> Claim:
        """A consistency check: our inputs or formulas against the paper's; shown, never counted."""
        claim = Claim(source, statement, values, Verdict.CONSISTENT if consistent else Verdict.INCONSISTENT, reason)
        self.claims.append(claim)
        return claim

    def out_of_scope(self, source: str, statement: str, reason: str) -> Claim:
        claim = Claim(source, statement, [], Verdict.OUT_OF_SCOPE, reason)
        self.claims.append(claim)
        return claim

    def tally(self) -> dict[str, int]:
        """Reproduction verdicts by kind (the only ones counted), then checks and out-of-scope items."""
        out = {v.value: sum(c.verdict is v for c in self.claims) for v in COUNTED}
        out["consistency checks"] = sum(c.verdict in (Verdict.CONSISTENT, Verdict.INCONSISTENT) for c in self.claims)
        out["out of scope"] = sum(c.verdict is Verdict.OUT_OF_SCOPE for c in self.claims)
        return out

    def status(self, c: Claim) -> str:
        """The status shown for a claim: a smoke test withholds reproduction verdicts."""
        if self.quick and c.verdict.counted:
            return "smoke test"
        return c.verdict.value

    def markdown(self, run_seconds: float) -> str:
        mode = "smoke test, `--quick`" if self.quick else "full mode"
        t = self.tally()
        lines = [
            f"# Reproduction: {self.title}",
            "",
            f"Paper: {self.citation}",
            "",
            f"Generated by `tcpstart reproduce {self.name}{' --quick' if self.quick else ''}` "
            f"in {run_seconds:.0f} s ({mode}). Paper numbers are typed in from the paper and cited; "
            "ours are computed by simulation.",
            "",
            f"Made by {describe(self.made_by)}.",
            "",
        ]
        if self.quick:
            lines += [SMOKE_TEST, ""]
        lines += ["## Inventory", ""]
        if not self.quick:
            lines += [
                f"Reproduction verdicts (the only ones counted): **{t['reproduced']} reproduced, "
                f"{t['reproduced in trend only']} in trend only, {t['not reproduced']} not reproduced** "
                f"of {sum(t[v.value] for v in COUNTED)}. Also {t['consistency checks']} consistency checks "
                f"(our inputs or formulas against the paper's, not counted) and {t['out of scope']} items "
                "out of scope.",
                "",
            ]
        lines += ["| Source | Claim | Status |", "| --- | --- | --- |"]
        lines += [f"| {c.source} | {c.statement} | **{self.status(c)}** |" for c in self.claims]
        lines += ["", "## Setup", "", self.setup]
        if self.choices:
            lines += [
                "",
                "## Set-up choices the paper leaves open",
                "",
                "| Parameter | Our choice | Why | Alternatives and what they change |",
                "| --- | --- | --- | --- |",
            ]
            # The alternatives' outcomes are verdicts too: a smoke test withholds them.
            lines += [
                f"| {c.parameter} | {c.choice} | {c.why} | {'(smoke test: withheld)' if self.quick else c.sensitivity} |"
                for c in self.choices
            ]
        sections = (
            ("Reproduction verdicts", [c for c in self.claims if c.verdict.counted]),
            (
                "Consistency checks (not counted)",
                [c for c in self.claims if c.verdict in (Verdict.CONSISTENT, Verdict.INCONSISTENT)],
            ),
        )
        for title, claims in sections:
            if not claims:
                continue
            lines += ["", f"## {title}"]
            for c in claims:
                text = "(smoke test: verdict and reason withheld)" if self.quick and c.verdict.counted else (
                    f"**{c.verdict.value}**: {c.reason}"
                )
                lines += ["", f"### {c.source}: {c.statement}", "", text, ""]
                if c.values:
                    lines += _value_table(c.values)
        scope = [c for c in self.claims if c.verdict is Verdict.OUT_OF_SCOPE]
        if scope:
            lines += ["", "## Out of scope", ""]
            lines += [f"- **{c.source}**: {c.statement}. {c.reason}" for c in scope]
        for table in self.tables:
            lines += ["", f"## {table.title}", "", "| " + " | ".join(table.columns) + " |"]
            lines.append("| " + " | ".join("---" if i == 0 else "---:" for i in range(len(table.columns))) + " |")
            lines += ["| " + " | ".join(x if isinstance(x, str) else _fmt(x) for x in row) + " |" for row in table.rows]
        if self.figures:
            lines += ["", "## Figures", ""]
            for fig in self.figures:
                lines += [f"![{fig.caption}]({fig.file})", "", f"*{fig.caption}*", ""]
        if self.notes:
            lines += ["", "## Interpretations and model differences", ""]
            lines += [f"- {n}" for n in self.notes]
        return "\n".join(lines) + "\n"

    def write(self, out: Path, run_seconds: float) -> Path:
        """Writes report.md, report.html, results.json and the figures to `out`, all or nothing."""
        with atomic_directory(out) as tmp:
            for fig in self.figures:
                fig.draw(tmp / fig.file)
            text = self.markdown(run_seconds)
            (tmp / "report.md").write_text(text)
            body = markdown.markdown(text, extensions=["tables"])
            (tmp / "report.html").write_text(_HTML.format(title=self.title, body=body))
            results = {
                "name": self.name,
                "quick": self.quick,
                "smoke_test": self.quick,
                "run_seconds": run_seconds,
                "provenance": self.made_by,
                "tally": None if self.quick else self.tally(),
                "claims": [_claim_json(c, self.quick) for c in self.claims],
                "choices": [{**asdict(c), "sensitivity": None if self.quick else c.sensitivity} for c in self.choices],
                "tables": [asdict(t) for t in self.tables],
                "data": self.data,
            }
            (tmp / "results.json").write_text(json.dumps(results, indent=1, default=_json_default))
        return out


def _fmt(x: Optional[float]) -> str:
    if x is None:
        return "-"
    if x == 0 or 0.01 <= abs(x) < 1e6:
        return f"{x:.4g}"
    return f"{x:.3e}"


def _value_table(values: list[Value]) -> list[str]:
    out = ["| | paper | ours | difference |", "| --- | ---: | ---: | ---: |"]
    for v in values:
        unit = f" {v.unit}" if v.unit else ""
        ours = _fmt(v.ours)
        if v.spread is not None:
            ours += f" ({v.spread_kind} {_fmt(v.spread[0])} to {_fmt(v.spread[1])})"
        diff = "-" if v.difference is None else f"{v.difference:+.1%}"
        has_paper = v.paper is not None or v.paper_range is not None
        out.append(f"| {v.label} | {v.paper_text()}{unit if has_paper else ''} | {ours}{unit} | {diff} |")
    return out


def _claim_json(c: Claim, quick: bool) -> dict[str, Any]:
    d = asdict(c)
    d["verdict"] = None if quick and c.verdict.counted else c.verdict.value
    d["kind"] = (
        "reproduction" if c.verdict.counted else "out of scope" if c.verdict is Verdict.OUT_OF_SCOPE else "check"
    )
    if quick and c.verdict.counted:
        d["reason"] = None
    for v, vd in zip(c.values, d["values"]):
        vd["difference"] = v.difference
    return d


def _json_default(o: Any) -> Any:
    if isinstance(o, Path):
        return str(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


_HTML = """<!doctype html>
<html><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: sans-serif; max-width: 60em; margin: 2em auto; line-height: 1.4; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #ccc; padding: 0.2em 0.5em; }}
img {{ max-width: 100%; }}
</style></head>
<body>
{body}
</body></html>
"""
