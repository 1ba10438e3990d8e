"""The kernel testbed: a scenario run on real Linux TCP between network namespaces.

    import tcpstart as ts
    results = ts.testbed("scenarios/dumbbell-newreno.toml", runs=3)   # list of Result

Needs root (namespaces, qdiscs, tracefs) and a kernel with veth, TUN, TBF and the tcp_probe
tracepoint. See docs/testbed.md for the topology and how each scenario field maps to the kernel.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from tcpstart.scenario import ScenarioLike, expanded, scenario_dict


def requirements() -> Optional[str]:
    """None when this machine can run the testbed, else one line saying what is missing."""
    if os.geteuid() != 0:
        return "the testbed needs root (network namespaces, qdiscs, tracefs)"
    for tool in ("ip", "tc"):
        if not any((Path(d) / tool).exists() for d in os.environ.get("PATH", "").split(os.pathsep) + ["/usr/sbin", "/sbin"]):
            return f"the testbed needs the `{tool}` command (iproute2)"
    if not Path("/dev/net/tun").exists():
        return "the testbed needs /dev/net/tun (CONFIG_TUN)"
    from tcpstart.kernel.plan import available_algorithms

    if not available_algorithms():
        return "no /proc/sys/net/ipv4/tcp_available_congestion_control: not a Linux kernel with TCP"
    return None


def testbed(scenario: ScenarioLike, runs: int = 1, out: Optional[str | os.PathLike[str]] = None) -> list:
    """Runs the scenario `runs` times on the kernel; returns a Result per run.

    With `out`, run i is saved to `out/run<i>` (each folder complete or absent). Raises
    ScenarioError (one line naming the field) for what the testbed cannot do, TestbedError when
    the machine refuses a step.
    """
    from tcpstart.results import Result
    from tcpstart.scenario import ScenarioError
    from tcpstart.kernel.netns import TestbedError
    from tcpstart.kernel.plan import make_plan
    from tcpstart.kernel.result import build
    from tcpstart.kernel.runner import run_once

    if runs < 1:
        raise ValueError(f"runs: must be at least 1, got {runs}")
    d, path = scenario_dict(scenario)
    try:
        plan = make_plan(expanded(d))
    except ScenarioError as e:
        raise ScenarioError(f"{path}: {e}" if path else str(e)) from None
    missing = requirements()
    if missing:
        raise TestbedError(missing)
    results: list[Result] = []
    for i in range(runs):
        result = build(plan, run_once(plan, i), d)
        if out is not None:
            result.save(Path(out) / f"run{i}")
        results.append(result)
    return results
