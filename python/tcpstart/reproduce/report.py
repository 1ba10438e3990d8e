"""A reproduction report: the paper's numbers, ours, the difference and a verdict per claim.

The paper's numbers are typed in from the paper and cited by table or figure; ours are computed by
simulation. A verdict is derived from the two by a rule stated with the claim, never typed in.
"""

from __future__ import annotations

import enum
import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import markdown

from tcpstart._files import atomic_directory


class Verdict(str, enum.Enum):
    REPRODUCED = "reproduced"
    TREND = "reproduced in trend only"
    NOT = "not reproduced"


@dataclass
class Value:
    """One number the paper reports, next to ours."""

    label: str
    paper: Optional[float]
    ours: Optional[float]
    unit: str = ""
    # Spread of ours over seeds (min, max), when the setting has randomness.
    spread: Optional[tuple[float, float]] = None

    @property
    def difference(self) -> Optional[float]:
        """Ours relative to the paper's: (ours - paper) / |paper|."""
        if self.paper is None or self.ours is None or self.paper == 0:
            return None
        return (self.ours - self.paper) / abs(self.paper)


@dataclass
class Claim:
    """A statement of the paper, checked against our simulation."""

    source: str
    """Where the paper says it: "Table 2", "Figure 4", "Section 4.1"."""
    statement: str
    values: list[Value]
    verdict: Verdict
    reason: str
    """Why the verdict is what it is, and the model difference where ours and theirs differ."""


def judge_values(values: Sequence[Value], tolerance: float, what: str) -> tuple[Verdict, str]:
    """Reproduced when every number is within `tolerance` (relative) of the paper's; reproduced in
    trend when ours rise and fall with theirs (rank correlation at least 0.8 over three or more
    points); otherwise not reproduced."""
    pairs = [(v.paper, v.ours) for v in values if v.paper is not None and v.ours is not None]
    if not pairs:
        return Verdict.NOT, f"no {what} to compare"
    diffs = [abs(v.difference) for v in values if v.difference is not None]
    worst = max(diffs) if diffs else math.inf
    if worst <= tolerance:
        return Verdict.REPRODUCED, f"every {what} within {tolerance:.0%} of the paper's (worst {worst:.1%})"
    rho = rank_correlation([p for p, _ in pairs], [o for _, o in pairs])
    if len(pairs) >= 3 and rho is not None and rho >= 0.8:
        return Verdict.TREND, f"{what} follow the paper's trend (rank correlation {rho:.2f}) but differ by up to {worst:.0%}"
    detail = f", rank correlation {rho:.2f}" if rho is not None else ""
    return Verdict.NOT, f"{what} differ by up to {worst:.0%} from the paper's{detail}"


def judge(holds: bool, trend: bool, because: str) -> tuple[Verdict, str]:
    """For a qualitative claim: it holds, holds only in direction, or not."""
    if holds:
        return Verdict.REPRODUCED, because
    if trend:
        return Verdict.TREND, because
    return Verdict.NOT, because


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
    notes: list[str] = field(default_factory=list)
    """Interpretations and model differences that apply to the whole report."""
    data: dict[str, Any] = field(default_factory=dict)
    """Every number the report shows, for results.json."""

    def add(self, source: str, statement: str, values: list[Value], verdict: tuple[Verdict, str]) -> Claim:
        claim = Claim(source, statement, values, verdict[0], verdict[1])
        self.claims.append(claim)
        return claim

    def markdown(self, run_seconds: float) -> str:
        mode = "quick mode (fewer seeds and points)" if self.quick else "full mode"
        lines = [
            f"# Reproduction: {self.title}",
            "",
            f"Paper: {self.citation}",
            "",
            f"Generated by `tcpstart reproduce {self.name}{' --quick' if self.quick else ''}` "
            f"in {run_seconds:.0f} s ({mode}). Paper numbers are typed in from the paper and cited; "
            "ours are computed by simulation.",
            "",
            "## Setup",
            "",
            self.setup,
            "",
            "## Verdicts",
            "",
            "| Source | Claim | Verdict |",
            "| --- | --- | --- |",
        ]
        lines += [f"| {c.source} | {c.statement} | **{c.verdict.value}** |" for c in self.claims]
        for c in self.claims:
            lines += ["", f"## {c.source}: {c.statement}", "", f"**{c.verdict.value}**: {c.reason}", ""]
            if c.values:
                lines += _value_table(c.values)
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
                "run_seconds": run_seconds,
                "claims": [_claim_json(c) for c in self.claims],
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
            ours += f" ({_fmt(v.spread[0])}-{_fmt(v.spread[1])})"
        diff = "-" if v.difference is None else f"{v.difference:+.1%}"
        out.append(f"| {v.label} | {_fmt(v.paper)}{unit if v.paper is not None else ''} | {ours}{unit} | {diff} |")
    return out


def _claim_json(c: Claim) -> dict[str, Any]:
    d = asdict(c)
    d["verdict"] = c.verdict.value
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
