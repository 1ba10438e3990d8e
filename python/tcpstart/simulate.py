"""Running scenarios in the Rust core."""

from __future__ import annotations

import json
from typing import Any, Callable, Optional, Sequence

from tcpstart import _core
from tcpstart.progress import watching
from tcpstart.results import Result
from tcpstart.scenario import ScenarioError, ScenarioLike, scenario_dict, to_json

# A run broke one of the simulator's invariants (a simulator bug); a RuntimeError.
InvariantError = _core.InvariantError


def run(scenario: ScenarioLike, *, label: str = "simulating") -> Result:
    """Simulates a Scenario, a scenario dict, or a TOML file given by path.

    The same scenario and seed always give the same result. Raises ScenarioError (a ValueError)
    with a one-line message naming the field when the scenario is not valid, InvariantError when
    the run breaks one of the simulator's invariants, and KeyboardInterrupt at once on Ctrl-C.
    A run that goes on for more than a second shows its progress on a terminal (stderr),
    labelled `label`, and says up front on stderr when it will take more than a minute.
    """
    with watching(label) as progress:
        return run_in_turn([scenario], progress=progress)[0]


def run_in_turn(
    scenarios: Sequence[ScenarioLike],
    stop: Optional[_core.Stop] = None,
    progress: Optional[Callable[[int, float, Optional[float]], None]] = None,
) -> list[Result]:
    """Simulates the scenarios one after another on this thread, in one call into the core.

    A run of a millisecond costs tens of microseconds more when Python's work for it (the
    scenario, the Result) alternates with the core's than when each side does a whole
    batch in turn (the simulation evicts the interpreter from the caches), and the GIL is released
    and taken back once per batch. Raises ScenarioError for the first invalid scenario; setting
    `stop` raises KeyboardInterrupt (see `_core.run_all`, which calls `progress`).
    """
    given = [scenario_dict(s) for s in scenarios]
    runs, error = _core.run_all([to_json(d) for d, _ in given], stop, progress)
    if error is not None:
        path = given[len(runs)][1]
        raise ScenarioError(f"{path}: {error}" if path else error)
    return [Result.from_core(out, scenario=d) for out, (d, _) in zip(runs, given)]


def estimate(scenario: ScenarioLike) -> dict[str, Any]:
    """The estimated size of a scenario's run, before anything of it is expanded or simulated.

    Returns connections, udp_sources, simulated_seconds, packets (over the two bottleneck
    links), flow_rows, queue_rows, packet_rows, pcap_bytes, memory_bytes, cpu_seconds, the
    limits the run is held to (memory, packets) and refusal: None, or the one-line reason
    `run` would refuse the scenario. Raises ScenarioError for a scenario within its limits that
    is not valid (one beyond them is not expanded, so not every field is checked).
    """
    d, path = scenario_dict(scenario)
    try:
        return _core.estimate(to_json(d))
    except ValueError as e:
        raise ScenarioError(f"{path}: {e}" if path else str(e)) from None


def algorithms() -> list[dict[str, Any]]:
    """The available congestion-control algorithms with their parameters, defaults and ranges."""
    return json.loads(_core.algorithms())
