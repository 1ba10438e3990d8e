"""Writes the synthetic delivery traces of this folder (mahimahi format: one line per delivery
opportunity, the whole milliseconds since the start at which one MTU-sized packet may leave).

They are made up, not measured: no real trace could be fetched for the project. Each stands
for a kind of path by a rate process chosen to look like published descriptions of it, drawn
from a fixed seed, so `python scenarios/traces/synthesize.py` rewrites them byte for byte.

- cellular-driving.trace (20 s cycle): an LTE-like downlink in a moving car. The rate is a
  random walk in log space, a new value every 20 ms (a few radio scheduling periods), between
  0.5 and 40 Mb/s around 8 Mb/s, with two 300 ms outages (handovers without make-before-break);
  Winstein, Sivaraman, Balakrishnan (Sprout, NSDI 2013) describe cellular rates that change by
  an order of magnitude within seconds and outages of hundreds of milliseconds.
- cellular-stationary.trace (5 s cycle): a stationary user, 20 Mb/s give or take a fifth.

Within each 1 ms slot the number of packets is Poisson with the slot's mean (rate x 1 ms /
one 1500-byte packet), so packets come in the uneven bunches real traces show.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

PACKET_BITS = 1500 * 8


def poisson(rng: random.Random, mean: float) -> int:
    """Knuth's method: small means only (a few packets per millisecond)."""
    limit, k, p = math.exp(-mean), 0, rng.random()
    while p > limit:
        k += 1
        p *= rng.random()
    return k


def trace(rate_at_ms: list[float], seed: int) -> str:
    rng = random.Random(seed)
    lines = []
    for ms, bps in enumerate(rate_at_ms, start=1):
        lines.extend([str(ms)] * poisson(rng, bps * 1e-3 / PACKET_BITS))
    # The cycle's length is the last line's time: end on the cycle's last millisecond.
    if not lines or lines[-1] != str(len(rate_at_ms)):
        lines.append(str(len(rate_at_ms)))
    return "\n".join(lines) + "\n"


def driving(seconds: int = 20, seed: int = 24) -> list[float]:
    rng = random.Random(seed)
    level, rates = math.log(8e6), []
    outages = [(6_000, 6_300), (14_500, 14_800)]
    for slot in range(seconds * 1000 // 20):
        level += rng.gauss(0.0, 0.25) + 0.05 * (math.log(8e6) - level)
        level = min(max(level, math.log(0.5e6)), math.log(40e6))
        for ms in range(slot * 20, slot * 20 + 20):
            rates.append(0.0 if any(a <= ms < b for a, b in outages) else math.exp(level))
    return rates


def stationary(seconds: int = 5, seed: int = 25) -> list[float]:
    rng = random.Random(seed)
    rates = []
    for _ in range(seconds * 1000 // 20):
        rates.extend([20e6 * (1 + rng.uniform(-0.2, 0.2))] * 20)
    return rates


if __name__ == "__main__":
    here = Path(__file__).parent
    (here / "cellular-driving.trace").write_text(trace(driving(), seed=1))
    (here / "cellular-stationary.trace").write_text(trace(stationary(), seed=2))
