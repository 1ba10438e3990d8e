"""What the machine took from a kernel run: the delay line's lateness and the CPU time the
hypervisor gave to other guests (steal), and the warning a run gets when either was too much for
its timing to be the path's.

A kernel run on a virtual machine is timed by vCPUs the host may deschedule: then the delay line
releases late and in bursts, the senders' RTT samples grow and a start-up that measures the path
(ESS's RTT limit, a packet pair's gap) measures the host instead. The delay line's real-time
priority protects it from the guest's own load, not from the host's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

# Mean lateness of the delay line above which a run's timing is the testbed's, not the path's.
LATE_WARNING_US = 500
# Share of the machine's CPU time stolen by the host above which a run's timing is the host's.
STEAL_WARNING = 0.02

PROC_STAT = Path("/proc/stat")


def cpu_times() -> tuple[int, int]:
    """(steal, total) clock ticks of all CPUs since boot, from /proc/stat's `cpu` line
    (user nice system idle iowait irq softirq steal; guest time is counted within user)."""
    fields = [int(x) for x in PROC_STAT.read_text().split("\n", 1)[0].split()[1:9]]
    return fields[7], sum(fields)


def steal_share(before: tuple[int, int], after: tuple[int, int]) -> float:
    """The share of CPU time the host stole between two `cpu_times()` readings."""
    total = after[1] - before[1]
    return (after[0] - before[0]) / total if total > 0 else 0.0


def warning(delay_line: dict[str, Any], steal: float) -> str | None:
    """One line saying why a run's timing is not the path's, or None."""
    reasons = []
    if delay_line["mean_late_us"] > LATE_WARNING_US:
        reasons.append(f"the delay line fell behind (mean lateness {delay_line['mean_late_us'] / 1e3:.1f} ms, worst "
                       f"{delay_line['max_late_us'] / 1e3:.1f} ms)")
    if steal > STEAL_WARNING:
        reasons.append(f"the host took {steal:.1%} of the CPU time (steal)")
    if not reasons:
        return None
    return " and ".join(reasons) + ": the machine could not carry this path at full timing"
