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

from tcpstart.results import Result
from tcpstart.run import algorithms, run
from tcpstart.scenario import Dumbbell, Flow, Scenario, ScenarioError, Tcp, Trace, Udp, Web, load_scenario

__all__ = [
    "Dumbbell",
    "Flow",
    "Result",
    "Scenario",
    "ScenarioError",
    "Tcp",
    "Trace",
    "Udp",
    "Web",
    "algorithms",
    "load_scenario",
    "run",
]
