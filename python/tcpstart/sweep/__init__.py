"""Campaigns: many runs over axes of a base scenario, cached, resumable, on threads or Ray.

`ts.Sweep` (tcpstart.sweep.campaign) is the entry point; `ts.Range` makes an axis of evenly
spaced values; `aggregate` gives per-cell means and confidence intervals of any campaign table.
The store of finished runs is described in tcpstart.sweep.cache; docs/campaigns.md has the rest.
"""

from tcpstart.sweep.campaign import ReplicationWarning, RunStats, Sweep
from tcpstart.sweep.results import aggregate
from tcpstart.sweep.spec import Range

__all__ = ["Range", "ReplicationWarning", "RunStats", "Sweep", "aggregate"]
