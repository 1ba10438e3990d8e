"""The Rust core. Scenarios and results cross this boundary as JSON text and column lists."""

from typing import Any

def validate(scenario_json: str) -> str:
    """Parses and checks a scenario; returns it resolved (all defaults filled in) as JSON.

    Raises ValueError with one line, "<field path>: <message>", for a scenario that is not valid.
    """

def run(scenario_json: str) -> dict[str, Any]:
    """Simulates a scenario. Raises ValueError like validate().

    Returns {"summary": JSON text, "flows": columns, "queues": columns,
    "packets": columns or None, "pcaps": {link name: pcap file bytes}}, where columns are a dict
    of equal-length lists.
    """

def algorithms() -> str:
    """JSON list of the algorithms: name, summary, reference and params with default/min/max."""
