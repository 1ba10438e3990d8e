"""What the start-up comparison's report says besides its figures: what the kernel does that the
simulator models (INTRO) and, per scenario that misses a target, why (NOTES, keyed by algorithm
and the scenario's index in tcpstart.kernel.startups.CASES). Written from the traces of the
committed run (docs/validation-linux-startups.md)."""

INTRO: list[str] = []

NOTES: dict[tuple[str, int], str] = {}
