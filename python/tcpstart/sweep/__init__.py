"""Campaigns: many runs over axes of a base scenario, cached, resumable, on threads or Ray.

`ts.Sweep` (tcpstart.sweep.campaign) is the entry point; `ts.Range` makes an axis of evenly
spaced values; `aggregate` gives per-cell means and confidence intervals of any campaign table.
The store of finished runs is described in tcpstart.sweep.cache; docs/campaigns.md has the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tcpstart._lazy import lazy_exports

if TYPE_CHECKING:
    # `X as X`: the names type checkers see as exported.
    from tcpstart.sweep.campaign import ReplicationWarning as ReplicationWarning
    from tcpstart.sweep.campaign import RunStats as RunStats
    from tcpstart.sweep.campaign import Sweep as Sweep
    from tcpstart.sweep.results import aggregate as aggregate
    from tcpstart.sweep.spec import Range as Range

# Loaded on first use, so that `tcpstart` commands other than sweep, which import the command's
# registration from here, do not load the campaign machinery.
_EXPORTS = {
    "Range": "tcpstart.sweep.spec",
    "ReplicationWarning": "tcpstart.sweep.campaign",
    "RunStats": "tcpstart.sweep.campaign",
    "Sweep": "tcpstart.sweep.campaign",
    "aggregate": "tcpstart.sweep.results",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
