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

from typing import TYPE_CHECKING

from tcpstart._core import __version__
from tcpstart._lazy import lazy_exports

if TYPE_CHECKING:
    # `X as X`: the names type checkers see as exported (mypy --strict, pyright).
    from tcpstart.batch import run_many as run_many
    from tcpstart.controllers import (
        Controller as Controller,
        ControllerError as ControllerError,
        Param as Param,
        Receiver as Receiver,
        register as register,
    )
    from tcpstart.kernel import testbed as testbed
    from tcpstart.results import Result as Result
    from tcpstart.simulate import InvariantError as InvariantError, algorithms as algorithms, estimate as estimate, run as run
    from tcpstart.sweep import Range as Range, Sweep as Sweep
    from tcpstart.scenario import (
        AckCompression as AckCompression,
        Aqm as Aqm,
        Dumbbell as Dumbbell,
        Flow as Flow,
        Limits as Limits,
        Scenario as Scenario,
        ScenarioError as ScenarioError,
        Tcp as Tcp,
        Trace as Trace,
        Udp as Udp,
        Web as Web,
        load_scenario as load_scenario,
    )

# Name -> module. Loaded on first use, so that `import tcpstart._core` (the benchmarks' child
# processes) does not pay for polars. No exported name may be the name of a module of the package:
# importing that module would replace the attribute.
_EXPORTS = {
    "AckCompression": "tcpstart.scenario",
    "Controller": "tcpstart.controllers",
    "ControllerError": "tcpstart.controllers",
    "Param": "tcpstart.controllers",
    "Aqm": "tcpstart.scenario",
    "Dumbbell": "tcpstart.scenario",
    "Flow": "tcpstart.scenario",
    "InvariantError": "tcpstart.simulate",
    "Limits": "tcpstart.scenario",
    "Range": "tcpstart.sweep",
    "Receiver": "tcpstart.controllers",
    "Result": "tcpstart.results",
    "Scenario": "tcpstart.scenario",
    "ScenarioError": "tcpstart.scenario",
    "Sweep": "tcpstart.sweep",
    "Tcp": "tcpstart.scenario",
    "Trace": "tcpstart.scenario",
    "Udp": "tcpstart.scenario",
    "Web": "tcpstart.scenario",
    "algorithms": "tcpstart.simulate",
    "estimate": "tcpstart.simulate",
    "load_scenario": "tcpstart.scenario",
    "register": "tcpstart.controllers",
    "run": "tcpstart.simulate",
    "run_many": "tcpstart.batch",
    "testbed": "tcpstart.kernel",
}

__all__ = sorted([*_EXPORTS, "__version__"])
__getattr__ = lazy_exports(__name__, _EXPORTS)


def __dir__() -> list[str]:
    """What tab completion offers: the public names, not the module's imports."""
    return list(__all__)
