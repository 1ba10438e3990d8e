"""The reference benchmarks B1-B4 and B3's variant B3-iw200.

Each benchmark is one file, `benchmarks/<name>.toml` next to this module, which the native
`cargo run -p tcpstart-sim --example bench` compiles in as well: one definition for both. A file is
a scenario as `tcpstart run` reads it, plus a `[benchmark]` table that the two readers take out:
`description`, and `variant_of` for a variant, which is not one of the default benchmarks and
which `tcpstart bench --ns3` runs after the benchmark it varies. The file's `duration` (none:
until every flow has finished) is the issue's; `--duration` replaces it.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from tcpstart.scenario import read_scenario_file

BENCHMARK_DIR = Path(__file__).with_name("benchmarks")


@dataclass(frozen=True)
class Benchmark:
    name: str
    description: str
    definition: dict[str, Any]
    """The file's scenario, without the `[benchmark]` table."""
    duration: Optional[str]
    """The issue's simulated duration; None for a benchmark of finite transfers."""
    variant_of: Optional[str] = None

    def scenario(self, duration: Optional[str]) -> dict[str, Any]:
        """The scenario, given the simulated duration (None: until every flow has finished)."""
        s = copy.deepcopy(self.definition)
        s.pop("duration", None)
        if duration is not None:
            s["duration"] = duration
        return s


def _load(path: Path) -> Benchmark:
    definition = read_scenario_file(path)
    meta = definition.pop("benchmark")
    return Benchmark(path.stem, meta["description"], definition, definition.get("duration"), meta.get("variant_of"))


# Sorted by name, which is the order of the issue: B1, B2, B3, (B3-iw200,) B4.
_ALL = [_load(p) for p in sorted(BENCHMARK_DIR.glob("*.toml"))]
BENCHMARKS = {b.name: b for b in _ALL if b.variant_of is None}
VARIANTS = {b.name: b for b in _ALL if b.variant_of is not None}


def contention(
    algorithm: str = "jump-start", pairs: int = 100, **tcp: Any
) -> Callable[[Optional[str]], dict[str, Any]]:
    """B3 (scenarios/jump-start-200.toml with a connection start every 50 ms) with `algorithm` on
    `pairs` host pairs: 2 x `pairs` connections of 200 packets from alternating sides of a 5 Mbps,
    64 ms RTT bottleneck with a 60-packet queue, on 50 Mbps access links (left connection k
    forward on pair k from k x 100 ms, right connection k reverse on pair k from 50 ms + k x
    100 ms). `tcp` adds to (or replaces) the TCP settings."""

    def scenario(duration: Optional[str]) -> dict[str, Any]:
        s = BENCHMARKS["B3"].scenario(duration)
        s["network"]["hosts"] = pairs
        s["tcp"].update(tcp)
        for side in s["flows"]:
            side.update(algorithm=algorithm, count=pairs)
        return s

    return scenario
