"""tcpstart: a packet-level TCP simulator for studying slow start and congestion control.

    import tcpstart as ts

    scn = ts.Scenario(
        network=ts.Dumbbell(rate="20Mbps", rtt="200ms", queue="1bdp"),
        flows=[ts.Flow("newreno", size="1MB")],
    )
    res = ts.run(scn)              # same scenario and seed -> identical result
    print(res.summary)             # polars DataFrame, one row per flow
    res.plot("cwnd").savefig("cwnd.png")
    res.save("out/newreno")        # summary.json, flows.parquet, queues.parquet, ...

The simulation runs in a Rust core (`tcpstart._core`), which is also the one place where
scenarios are validated.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tcpstart.batch import run_many
    from tcpstart.kernel import testbed
    from tcpstart.results import Result
    from tcpstart.simulate import algorithms, run
    from tcpstart.scenario import (
        AckCompression,
        Aqm,
        Dumbbell,
        Flow,
        Scenario,
        ScenarioError,
        Tcp,
        Trace,
        Udp,
        Web,
        load_scenario,
    )

# Name -> module. Loaded on first use, so that `import tcpstart._core` (the benchmarks' child
# processes) does not pay for polars. No exported name may be the name of a module of the package:
# importing that module would replace the attribute.
_EXPORTS = {
    "AckCompression": "tcpstart.scenario",
    "Aqm": "tcpstart.scenario",
    "Dumbbell": "tcpstart.scenario",
    "Flow": "tcpstart.scenario",
    "Result": "tcpstart.results",
    "Scenario": "tcpstart.scenario",
    "ScenarioError": "tcpstart.scenario",
    "Tcp": "tcpstart.scenario",
    "Trace": "tcpstart.scenario",
    "Udp": "tcpstart.scenario",
    "Web": "tcpstart.scenario",
    "algorithms": "tcpstart.simulate",
    "load_scenario": "tcpstart.scenario",
    "run": "tcpstart.simulate",
    "run_many": "tcpstart.batch",
    "testbed": "tcpstart.kernel",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'tcpstart' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
