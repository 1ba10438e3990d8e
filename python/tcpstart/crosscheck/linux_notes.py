"""What tcpstart models differently from Linux (S1-...), and per-case notes from traced runs.

Filled in from the traces of the committed matrix run (docs/validation-linux.md)."""

DIFFERENCES: list[str] = []

NOTES: dict[str, str] = {}
