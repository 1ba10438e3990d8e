"""Running a scenario in the Rust core."""

from __future__ import annotations

import json
from typing import Any

from tcpstart import _core
from tcpstart.results import Result
from tcpstart.scenario import ScenarioError, ScenarioLike, scenario_dict, to_json


def run(scenario: ScenarioLike) -> Result:
    """Simulates a Scenario, a scenario dict, or a TOML file given by path.

    The same scenario and seed always give the same result. Raises ScenarioError (a ValueError)
    with a one-line message naming the field when the scenario is not valid.
    """
    d, path = scenario_dict(scenario)
    try:
        out = _core.run(to_json(d))
    except ValueError as e:
        raise ScenarioError(f"{path}: {e}" if path else str(e)) from None
    return Result.from_core(out, scenario=d)


def algorithms() -> list[dict[str, Any]]:
    """The available congestion-control algorithms with their parameters, defaults and ranges."""
    return json.loads(_core.algorithms())
