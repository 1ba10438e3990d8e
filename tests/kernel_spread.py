"""How a simulated completion time is held against several kernel runs of the same scenario.

Kernel runs on a shared machine stray in both directions: a delayed softirq or a preempted delay
line slows a run down (one Reno run of five took 1.48 s against 1.05 s for the rest, a whole set
of three ran 6-15 % slow on a loaded machine), and a start-up that measures the path can land a
lucky estimate (one Swift Start run of five 7 % faster than the rest). So the simulator must agree
with at least two of five runs: one stray run in either direction neither fails nor passes it.
"""

QUORUM = 2


def agrees(simulated: float, kernel_runs: list[float], tolerance: float) -> bool:
    """Whether `simulated` is within `tolerance` (relative) of at least QUORUM kernel runs."""
    return sum(abs(simulated / k - 1) <= tolerance for k in kernel_runs) >= QUORUM
