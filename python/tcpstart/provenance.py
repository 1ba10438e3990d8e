"""Which tcpstart made a result: version, commit, build, and when and where it ran.

Written into every result folder (summary.json, the Parquet files' metadata) and every report, so
that a figure in a paper can be traced to the code and the resolved scenario that made it.
"""

from __future__ import annotations

import datetime
import json
import platform
import sys
from typing import Any

from tcpstart import _core


def build() -> dict[str, Any]:
    """The installed core: version, git commit (None when built outside a checkout), PGO, profile."""
    info: dict[str, Any] = {"git_commit": None, "git_dirty": None, "pgo": None}
    info.update(json.loads(_core.__build__))
    info["version"] = _core.__version__
    info["profile"] = "debug" if _core.__debug_build__ else "release"
    return info


def provenance() -> dict[str, Any]:
    """build() plus the date (UTC), host, Python and platform of this moment."""
    return {
        "tcpstart": build(),
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": platform.node(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
    }


def commit_label(t: dict[str, Any]) -> str:
    """The build's commit as shown to people: its first 10 hex digits, '+changes' when the tree had
    uncommitted changes, 'unknown commit' when the core was built outside a checkout."""
    commit = t.get("git_commit")
    return (commit[:10] if commit else "unknown commit") + ("+changes" if t.get("git_dirty") else "")


def describe(p: dict[str, Any]) -> str:
    """One line for reprs and reports: 'tcpstart 0.1.0 (abc1234, PGO), 2026-11-26T20:00:00+00:00'."""
    t = p.get("tcpstart", {})
    extras = [commit_label(t)] + (["PGO"] if t.get("pgo") else []) + ([t["profile"]] if t.get("profile") == "debug" else [])
    return f"tcpstart {t.get('version', '?')} ({', '.join(extras)}), {p.get('created', '?')}"
