"""The Rust core. Scenarios cross this boundary as dicts or JSON text; results as a `Run` whose
summary and columns are converted when asked for."""

from typing import Any, Optional, Union

def validate(scenario_json: str) -> str:
    """Parses and checks a scenario; returns it resolved (all defaults filled in) as JSON.

    Raises ValueError with one line, "<field path>: <message>", for a scenario that is not valid.
    """

def run_all(scenarios: list[Union[str, dict[str, Any]]]) -> tuple[list[Run], Optional[str]]:
    """Simulates scenarios, each a dict or its JSON text, one after another without the GIL. A
    dict gives what `json.dumps(d, default=str)` would give, without making that text.

    Returns the runs in order and None, or, when a scenario is not valid, the runs before it and
    its one-line error, "<field path>: <message>".
    """

class Run:
    """A finished run held in Rust. Columns are a dict of name -> (numpy type code, bytes) or
    ("str", u32 codes as bytes, distinct strings); each take_* hands its columns over once (a
    second call raises RuntimeError)."""

    core_seconds: float
    """Wall time of the simulation alone."""
    invariants_ok: bool

    def summary(self) -> dict[str, Any]:
        """The summary as a new dict, equal to json.loads of summary.json."""
    def take_flows(self) -> dict[str, Any]: ...
    def take_queues(self) -> dict[str, Any]: ...
    def take_packets(self) -> Optional[dict[str, Any]]: ...
    def pcaps(self) -> dict[str, bytes]:
        """The pcap files by link name."""

__version__: str
__build__: str
"""JSON object from the build backend: git_commit, git_dirty, pgo ("{}" when built otherwise)."""
__debug_build__: bool

def schema() -> str:
    """JSON list of the trace tables, each {"table", "columns"}, a column {"name", "dtype" (float,
    int, text or link), "unit", "doc"}, in the order the tables hold them."""

def algorithms() -> str:
    """JSON list of the algorithms: name, summary, reference and params with default/min/max."""
