"""What a campaign runs: axes over scenario fields, the design that picks cells from them, and
the replications of each cell with their seeds.

An axis names scenario fields by path (`network.rtt`, `flows[0].size`, `flows[*].algorithm`,
`flows[0].params.gamma`) and gives their values: a list, a `Range` (linear or log), or, for
several paths at once ("zipped"), a list of tuples. A design turns the axes into cells: the full
grid, or `samples` random or Latin-hypercube points (seeded). Each cell runs `replications` times.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from tcpstart.scenario import ScenarioError, validate

Value = Any
AxisValues = Union[Sequence[Value], "Range"]

DESIGNS = ("grid", "random", "lhs")

# Significant digits of the values a range makes: "30.8318ms" rather than 17 digits of noise, and
# the same text (so the same run, and cache entry) whatever platform computed it.
DIGITS = 6

_QUANTITY = re.compile(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*([A-Za-z%]*)\s*")
_STEP = re.compile(r"\.([A-Za-z_][\w-]*)|\[(\d+|\*)\]")


def split_quantity(value: Value) -> Tuple[float, str]:
    """(number, unit) of 20, 0.5 or "20ms"; ValueError for anything else."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value), ""
    m = _QUANTITY.fullmatch(str(value))
    if not m:
        raise ValueError(f"{value!r} is not a number with an optional unit such as 20ms")
    return float(m[1]), m[2]


def _rounded(x: float, unit: str) -> Value:
    text = f"{x:.{DIGITS}g}"
    if unit:
        return text + unit
    number = float(text)
    return int(number) if number.is_integer() and "e" not in text and "." not in text else number


@dataclass(frozen=True)
class Range:
    """`num` values from `start` to `stop` (both included), evenly spaced (`scale="linear"`) or
    evenly spaced in the logarithm (`scale="log"`). Ends with a unit ("20ms") give values with
    that unit. A random or Latin-hypercube design draws from the whole interval instead (on the
    same scale), and needs no `num`."""

    start: Value
    stop: Value
    num: Optional[int] = None
    scale: str = "linear"

    def __post_init__(self) -> None:
        (a, unit_a), (b, unit_b) = split_quantity(self.start), split_quantity(self.stop)
        if unit_a != unit_b:
            raise ValueError(f"range ends must have the same unit, got {self.start!r} and {self.stop!r}")
        if self.scale not in ("linear", "log"):
            raise ValueError(f"scale must be linear or log, got {self.scale!r}")
        if self.scale == "log" and (a <= 0 or b <= 0):
            raise ValueError(f"a log range needs positive ends, got {self.start!r} and {self.stop!r}")
        if self.num is not None and (not isinstance(self.num, int) or self.num < 1):
            raise ValueError(f"num must be a whole number of at least 1, got {self.num!r}")

    def _ends(self) -> Tuple[float, float, str]:
        (a, unit), (b, _) = split_quantity(self.start), split_quantity(self.stop)
        return a, b, unit

    def values(self) -> List[Value]:
        if self.num is None:
            raise ValueError("a range in a grid needs num, the number of values")
        a, b, unit = self._ends()
        space = np.geomspace if self.scale == "log" else np.linspace
        return [_rounded(float(x), unit) for x in space(a, b, self.num)]

    def at(self, u: float) -> Value:
        """The value a fraction `u` (0 to 1) of the way along the range, on its scale."""
        a, b, unit = self._ends()
        x = math.exp(math.log(a) + u * (math.log(b) - math.log(a))) if self.scale == "log" else a + u * (b - a)
        return _rounded(x, unit)


@dataclass(frozen=True)
class Axis:
    """One dimension of a design: the paths it sets and, for each point, their values."""

    paths: Tuple[str, ...]
    points: Union[List[Tuple[Value, ...]], Range]

    def grid(self) -> List[Tuple[Value, ...]]:
        return [(v,) for v in self.points.values()] if isinstance(self.points, Range) else self.points

    def at(self, u: float) -> Tuple[Value, ...]:
        """The point a fraction `u` (0 to 1) of the way along the axis (a list: by position)."""
        if isinstance(self.points, Range):
            return (self.points.at(u),)
        return self.points[min(int(u * len(self.points)), len(self.points) - 1)]


@functools.lru_cache(maxsize=None)
def parse_path(path: str) -> Tuple[Union[str, int], ...]:
    """"flows[0].params.gamma" -> ["flows", 0, "params", "gamma"]; "*" for every element."""
    steps: List[Union[str, int]] = []
    text = "." + path.strip()
    pos = 0
    while pos < len(text):
        m = _STEP.match(text, pos)
        if not m:
            raise ValueError(f"{path!r} is not a field path such as network.rtt or flows[0].size")
        steps.append(m[1] if m[1] is not None else (m[2] if m[2] == "*" else int(m[2])))
        pos = m.end()
    return tuple(steps)


def set_path(scenario: Dict[str, Any], path: str, value: Value) -> None:
    """Sets a field of a scenario dict (TOML shape) by path, making missing tables on the way."""
    steps = parse_path(path)

    def walk(node: Any, i: int, where: str) -> None:
        step = steps[i]
        last = i == len(steps) - 1
        if isinstance(step, str) and step != "*":
            if not isinstance(node, dict):
                raise ScenarioError(f"axes: {path}: {where or 'the scenario'} is not a table")
            if last:
                node[step] = value
            else:
                walk(node.setdefault(step, {} if isinstance(steps[i + 1], str) else []), i + 1, f"{where}.{step}".lstrip("."))
            return
        if not isinstance(node, list):
            raise ScenarioError(f"axes: {path}: {where} is not a list")
        indices = range(len(node)) if step == "*" else [step]
        for k in indices:
            if k >= len(node):
                raise ScenarioError(f"axes: {path}: the base scenario has {len(node)} entries in {where}")
            if last:
                node[k] = value
            else:
                walk(node[k], i + 1, f"{where}[{k}]")

    walk(scenario, 0, "")


def parse_axes(axes: Mapping[Union[str, Tuple[str, ...]], Any]) -> List[Axis]:
    """Axes from {path: values}; a tuple of paths (or "a,b" in TOML) zips them: values are tuples.

    Values are a list, a Range, or a table {from, to, num, scale} as TOML gives it."""
    out = []
    for key, values in axes.items():
        paths = tuple(p.strip() for p in (key.split(",") if isinstance(key, str) else key))
        for p in paths:
            try:
                parse_path(p)
            except ValueError as e:
                raise ScenarioError(f"axes: {e}") from None
            if p == "seed":
                raise ScenarioError("axes: seed: replications set the seed; give replications = N instead")
        if isinstance(values, Mapping):
            try:
                values = Range(values["from"], values["to"], values.get("num"), values.get("scale", "linear"))
            except KeyError as e:
                raise ScenarioError(f"axes: {key}: a range needs {e.args[0]!r} (from, to, num, scale)") from None
            except (ValueError, TypeError) as e:
                raise ScenarioError(f"axes: {key}: {e}") from None
        if isinstance(values, Range):
            if len(paths) != 1:
                raise ScenarioError(f"axes: {key}: zipped paths take a list of tuples, not a range")
            out.append(Axis(paths, values))
            continue
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
            raise ScenarioError(f"axes: {key}: give a non-empty list of values or a range")
        if len(paths) == 1:
            points = [(v,) for v in values]
        else:
            points = [tuple(v) if isinstance(v, (list, tuple)) else (v,) for v in values]
            bad = next((p for p in points if len(p) != len(paths)), None)
            if bad is not None:
                raise ScenarioError(f"axes: {key}: each value needs {len(paths)} parts, got {list(bad)!r}")
        out.append(Axis(paths, points))
    seen = [p for a in out for p in a.paths]
    twice = next((p for p in seen if seen.count(p) > 1), None)
    if twice:
        raise ScenarioError(f"axes: {twice}: appears in two axes")
    return out


def iter_cells(
    axes: Sequence[Axis], design: str = "grid", samples: Optional[int] = None, seed: int = 1
) -> Iterator[Dict[str, Value]]:
    """The design's cells, each {path: value}, made one at a time (a campaign of many cells
    holds none of them for long).

    "grid": every combination, the last axis varying fastest. "random": `samples` points drawn
    independently. "lhs": a Latin hypercube of `samples` points: each axis is cut into `samples`
    equal strata and each stratum is used once. Both draw from a generator seeded with `seed`.
    Checks the design before yielding anything.
    """
    if design not in DESIGNS:
        raise ScenarioError(f"design: must be one of {', '.join(DESIGNS)}, got {design!r}")
    if design == "grid":
        if samples is not None:
            raise ScenarioError("samples: only a random or lhs design takes samples")
        try:
            points = [a.grid() for a in axes]
        except ValueError as e:
            raise ScenarioError(f"axes: {e}") from None
        return (_cell(axes, combo) for combo in itertools.product(*points))
    if not isinstance(samples, int) or isinstance(samples, bool) or samples < 1:
        raise ScenarioError(f"samples: a {design} design needs samples, a whole number of at least 1, got {samples!r}")
    rng = np.random.default_rng(seed)
    if design == "random":
        u = rng.random((samples, len(axes)))
    else:
        # One stratum of width 1/samples per point in each column, in a random order per column.
        u = (np.stack([rng.permutation(samples) for _ in axes], axis=1) + rng.random((samples, len(axes)))) / samples
    return (_cell(axes, [a.at(float(x)) for a, x in zip(axes, row)]) for row in u)


def cells(axes: Sequence[Axis], design: str = "grid", samples: Optional[int] = None, seed: int = 1) -> List[Dict[str, Value]]:
    """The design's cells as a list (see iter_cells)."""
    return list(iter_cells(axes, design, samples, seed))


def _cell(axes: Sequence[Axis], points: Sequence[Tuple[Value, ...]]) -> Dict[str, Value]:
    return {p: v for a, point in zip(axes, points) for p, v in zip(a.paths, point)}


def default_paired(paths: Sequence[str]) -> List[str]:
    """The axes that replications are paired across by default: the algorithm and its parameters,
    the treatments a campaign compares."""
    return [p for p in paths if parse_path(p)[-1] == "algorithm" or "params" in parse_path(p)]


def cell_seeds(base_seed: int, cell: Mapping[str, Value], paired: Sequence[str]) -> Callable[[int], int]:
    """The seeds of a cell's replications, replication -> seed: a hash of the base seed, the
    replication index and the cell's values on the axes that are not paired.

    Cells that differ only in paired axes (by default the algorithm) get the same seeds
    (common random numbers); cells that differ elsewhere get independent ones. 63 bits, so it
    fits a signed 64-bit column. The hashed text is the JSON of [base_seed, replication,
    sorted (path, value) pairs], of which all but the index is made once per cell.
    """
    environment = sorted((p, v) for p, v in cell.items() if p not in paired)
    head = json.dumps(base_seed, default=str)
    tail = json.dumps(environment, sort_keys=True, separators=(",", ":"), default=str)

    def seed(replication: int) -> int:
        text = f"[{head},{replication},{tail}]"
        return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1

    return seed


def replication_seed(base_seed: int, replication: int, cell: Mapping[str, Value], paired: Sequence[str]) -> int:
    """The seed of one replication of a cell (see cell_seeds)."""
    return cell_seeds(base_seed, cell, paired)(replication)


_NS_PER_UNIT = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}


def _nanos(written: str) -> int:
    """A time as the core writes a resolved one: a whole number of s, ms, us or ns."""
    digits = written.rstrip("smun")
    return int(digits) * _NS_PER_UNIT[written[len(digits) :]]


def jitter_starts(scenario: Dict[str, Any], jitter_ns: int, seed: int) -> None:
    """Delays each flow's start by a uniform draw in [0, jitter_ns) from a generator seeded with
    `seed`, in place.

    A flow given with `starts` or Poisson arrivals keeps its schedule (it is explicit, or already
    random); one with `count` moves as a whole. The draws depend on the seed alone, so paired
    cells (the same seed) get the same delays.
    """
    resolved = validate(scenario)["flows"]
    rng = np.random.default_rng(seed)
    for flow, written in zip(scenario.get("flows", []), resolved):
        offset = int(rng.integers(jitter_ns)) if jitter_ns > 0 else 0
        if "starts" not in flow and flow.get("arrivals") != "poisson":
            flow["start"] = f"{_nanos(written['start']) + offset}ns"


@dataclass(frozen=True)
class Plan:
    """Everything that decides a campaign's runs."""

    base: Dict[str, Any]
    axes: List[Axis]
    replications: int = 1
    design: str = "grid"
    samples: Optional[int] = None
    seed: int = 1
    paired: Optional[List[str]] = None
    start_jitter: Optional[Value] = None

    def __post_init__(self) -> None:
        if not isinstance(self.replications, int) or isinstance(self.replications, bool) or self.replications < 1:
            raise ScenarioError(f"replications: must be a whole number of at least 1, got {self.replications!r}")
        paths = self.axis_paths()
        unknown = next((p for p in self.paired or [] if p not in paths), None)
        if unknown:
            raise ScenarioError(f"paired: {unknown!r} is not an axis; axes: {', '.join(paths)}")

    def axis_paths(self) -> List[str]:
        return [p for a in self.axes for p in a.paths]

    def paired_paths(self) -> List[str]:
        return default_paired(self.axis_paths()) if self.paired is None else list(self.paired)

    def jitter_ns(self) -> int:
        if self.start_jitter in (None, 0, "0s"):
            return 0
        # The core reads the duration, so that "10ms" means here what it means in a scenario.
        probe = {"network": {"rate": "1Mbps", "rtt": "1ms"}, "flows": [{"size": 1, "start": self.start_jitter}]}
        try:
            return _nanos(validate(probe)["flows"][0]["start"])
        except ScenarioError as e:
            raise ScenarioError(f"start_jitter: {str(e).partition(': ')[2] or e}") from None

    def cells(self) -> Iterator[Dict[str, Value]]:
        """The design's cells, one at a time."""
        return iter_cells(self.axes, self.design, self.samples, self.seed)

    def cell_count(self) -> int:
        self.cells()  # checks the design
        if self.design != "grid":
            return self.samples or 0
        return math.prod(len(a.grid()) for a in self.axes)

    def replicated_cells(self) -> Iterator[Tuple[int, Dict[str, Value], List[int]]]:
        """(cell index, cell, the seeds of its replications) of every cell, made as they are
        asked for."""
        paired = self.paired_paths()
        for i, cell in enumerate(self.cells()):
            seeds = cell_seeds(self.seed, cell, paired)
            yield i, cell, [seeds(r) for r in range(self.replications)]

    def runs(self) -> Iterator[Tuple[int, int, int, Dict[str, Value]]]:
        """(cell index, replication, seed, cell) of every run, made as they are asked for."""
        for i, cell, seeds in self.replicated_cells():
            for r, seed in enumerate(seeds):
                yield i, r, seed, cell

    def scenario(self, cell: Mapping[str, Value], seed: int, jitter_ns: int) -> Dict[str, Any]:
        """The scenario dict of a run: the base with the cell's values and the seed, and the
        flows' starts delayed when `jitter_ns` (from jitter_ns()) is not 0."""
        scenario: Dict[str, Any] = json.loads(json.dumps(self.base))
        for path, value in cell.items():
            set_path(scenario, path, value)
        scenario["seed"] = seed
        if jitter_ns:
            jitter_starts(scenario, jitter_ns, seed)
        return scenario
