"""How a simulated completion time is held against several kernel runs of the same scenario.

Kernel runs on a shared machine stray in both directions: a delayed softirq or a preempted delay
line slows a run down (one Reno run of five took 1.48 s against 1.05 s for the rest, a whole set
of three ran 6-15 % slow on a loaded machine), and a start-up that measures the path can land a
lucky estimate (one Swift Start run of five 7 % faster than the rest). So the simulator must agree
with at least two of five runs: one stray run in either direction neither fails nor passes it.

A run the testbed warns about (its delay line fell behind, or the host stole CPU time from this
virtual machine: tcpstart.kernel.disturbance) timed the machine, not the path, so it does not
count; such runs are replaced, up to a limit, and a check left without a quorum of undisturbed
runs is skipped with the testbed's warning as the reason.
"""

from __future__ import annotations

from typing import Any

import pytest

QUORUM = 2


def agrees(simulated: float, kernel_runs: list[float], tolerance: float) -> bool:
    """Whether `simulated` is within `tolerance` (relative) of at least QUORUM kernel runs."""
    return sum(abs(simulated / k - 1) <= tolerance for k in kernel_runs) >= QUORUM


def undisturbed(scenario: dict[str, Any], want: int = 5, most: int = 10) -> list[Any]:
    """Kernel runs of `scenario` until `want` of them ran without a testbed warning or `most` ran;
    the undisturbed ones. Skips the test when fewer than QUORUM were."""
    import tcpstart as ts

    clean: list[Any] = []
    warnings: list[str] = []
    while len(clean) < want and len(clean) + len(warnings) < most:
        for r in ts.testbed(scenario, runs=min(want - len(clean), most - len(clean) - len(warnings))):
            warning = r.raw_summary["testbed"]["warning"]
            if warning:
                warnings.append(warning)
            else:
                clean.append(r)
    if len(clean) < QUORUM:
        pytest.skip(f"{len(warnings)} of {len(warnings) + len(clean)} kernel runs disturbed: {warnings[-1]}")
    return clean


def described(results: list[Any]) -> list[str]:
    """Each run's completion time and what the machine took from it, for a failure's message."""
    out = []
    for r in results:
        tb, flow = r.raw_summary["testbed"], r.raw_summary["flows"][0]
        dl = tb["delay_line"]
        out.append(f"{flow['completion_time']:.4f} s (delay line late {dl['mean_late_us']:.0f} us mean, "
                   f"{dl['max_late_us'] / 1e3:.1f} ms worst; steal {tb['cpu_steal']:.2%}; load {tb['load_average'][0]:.1f})")
    return out
