"""The store of finished runs, so that a campaign resumes where it stopped.

A run is known by the SHA-256 of the tcpstart version and its fully resolved scenario (the core's
`validate` output, every default filled in, a canonical JSON text for a given version): two spellings of one scenario
("0.2s", "200ms") are one run, and a new version simulates afresh. Layout under the store's root:

    ab/abcdef...json    the run: {"format", "tcpstart", "key", "scenario", "summary"}
    ab/abcdef.../       its time series (Result.save), only when a campaign keeps them

Each file is written under a temporary name unique to the process and thread and renamed into
place (rename(2) is atomic), the time series first: a run's JSON file is there only when the run
is complete, so an interrupted campaign loses no finished run and leaves no half-written one. Two
campaigns that write one run at once write the same bytes (no times or hosts in the file), and
whichever rename comes last wins.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any, Dict, Optional

from tcpstart import _core
from tcpstart.results import Result
from tcpstart.scenario import ScenarioError, to_json

FORMAT = 1


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def resolve(scenario: Dict[str, Any]) -> str:
    """The core's resolved scenario as JSON text: its fields in their declared order, maps
    sorted, so the same text for the same scenario in every process of one version."""
    try:
        return _core.validate(to_json(scenario))
    except ValueError as e:
        raise ScenarioError(str(e)) from None


def run_key(resolved: str, version: str = _core.__version__) -> str:
    """The store key of a run: a hash of the tcpstart version and its resolved scenario."""
    return hashlib.sha256(f"{version}\n{resolved}".encode()).hexdigest()


class Store:
    """Finished runs in a folder, by key."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        # Sub-folders known to exist: asking the file system again costs a system call per run.
        self._folders: set[Path] = set()

    def _file(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def _traces(self, key: str) -> Path:
        return self.root / key[:2] / key

    def has(self, key: str, traces: bool = False) -> bool:
        return self._file(key).is_file() and (not traces or (self._traces(key) / "summary.json").is_file())

    def put(self, key: str, scenario: Dict[str, Any], summary: Dict[str, Any], result: Optional[Result] = None) -> None:
        """Stores a finished run; with `result`, its time series too."""
        path = self._file(key)
        if path.parent not in self._folders:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._folders.add(path.parent)
        if result is not None:
            result.save(self._traces(key))
        record = {"format": FORMAT, "tcpstart": _core.__version__, "key": key, "scenario": scenario, "summary": summary}
        tmp = path.with_name(f".{path.name}.{os.getpid()}-{threading.get_ident()}.tmp")
        # The summary's and the scenario's keys come in an order fixed by the core and the
        # plan, so the same run makes the same bytes without sorting them.
        tmp.write_text(json.dumps(record, separators=(",", ":"), default=str))
        os.replace(tmp, path)

    def summary(self, key: str) -> Dict[str, Any]:
        """The stored summary of a run (the dict of Result.raw_summary)."""
        record: Dict[str, Any] = json.loads(self._file(key).read_bytes())
        return record["summary"]

    def result(self, key: str) -> Result:
        """A run's full Result, for a run stored with its time series."""
        if not self.has(key, traces=True):
            raise ValueError(f"run {key[:12]}: no time series stored; run the campaign with keep_traces (--traces)")
        return Result.load(self._traces(key))
