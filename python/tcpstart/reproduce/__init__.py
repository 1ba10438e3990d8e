"""`tcpstart reproduce NAME`: each paper's experiments, our numbers beside the paper's.

Each paper has a module with one function, `reproduce(quick) -> Report`, that runs its
simulations and compares them with the numbers typed in from the paper.
"""

from __future__ import annotations

import importlib
import time
from pathlib import Path
from typing import Callable, Optional

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


def reproduce(
    name: str,
    out: Path,
    quick: bool = False,
    store: Optional[Path] = None,
    backend: str = "local",
    address: Optional[str] = None,
    rerun: bool = False,
) -> Report:
    """Runs one paper's reproduction and writes its report folder to `out`. Its measured runs
    (tcpstart.sweep.measure) are kept in `store` when given, so that running it again simulates
    only what is missing (`rerun`: all of it), and run on `backend` ("local" or "ray" at
    `address`)."""
    from tcpstart.sweep.measure import measuring

    began = time.monotonic()
    with measuring(store=store, backend=backend, address=address, rerun=rerun):
        report = reproducer(name)(quick)
    report.write(out, run_seconds=time.monotonic() - began)
    return report


__all__ = ["Claim", "Report", "Value", "Verdict", "names", "reproduce", "reproducer"]
