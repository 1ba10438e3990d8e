"""`tcpstart reproduce NAME`: each paper's experiments, our numbers beside the paper's.

Each paper has a module with one function, `reproduce(quick) -> Report`, that runs its
simulations and compares them with the numbers typed in from the paper.
"""

from __future__ import annotations

import importlib
import time
from pathlib import Path
from typing import Callable

from tcpstart.reproduce.report import Claim, Report, Value, Verdict

# Paper name -> module in this package.
PAPERS = {
    "ehstcp": "ehstcp",
    "ess": "ess",
    "jump-start": "jump_start",
    "modified-swift-start": "modified_swift_start",
    "swift-start-nasa": "swift_start_nasa",
}


def names() -> list[str]:
    return list(PAPERS)


def reproducer(name: str) -> Callable[[bool], Report]:
    if name not in PAPERS:
        raise ValueError(f"unknown reproduction {name!r}; available: {', '.join(PAPERS)}, all")
    module = importlib.import_module(f"tcpstart.reproduce.{PAPERS[name]}")
    return module.reproduce


def reproduce(name: str, out: Path, quick: bool = False) -> Report:
    """Runs one paper's reproduction and writes its report folder to `out`."""
    began = time.monotonic()
    report = reproducer(name)(quick)
    report.write(out, run_seconds=time.monotonic() - began)
    return report


__all__ = ["Claim", "Report", "Value", "Verdict", "names", "reproduce", "reproducer"]
