"""Lines of the simulator crate (crates/tcpstart-sim/src) by module at issue 22's base commit and
now, split into the machinery the issue names and the features added since by other issues, and
how much of each module's change issue 22's own merges made.

    python3 perf/core_lines.py [NOW]      # NOW defaults to HEAD

A module's lines are all its lines; "code" leaves out its unit tests (from a `#[cfg(test)]`
followed by `mod ... {` to the end of the file, or the whole file for a test module). "issue 22" is the net change of
the issue's merges into main (each merge against its first parent) and of the budget branch's
commits (core22); the rest of a module's change came with other issues' merges
(their conflict resolutions included).
"""

from __future__ import annotations

import collections
import subprocess
import sys

SRC = "crates/tcpstart-sim/src/"
BASE = "464c498"  # main when issue 22 was filed (the last commit before its golden outputs)
ISSUE_MERGES = {"golden": "559cd11", "simple": "b4ad4c1", "events": "2553fee", "scenario": "ed0ad9f", "core": "5c5b869"}
# The budget branch's commits that touch the crate (the endpoints' one shape, run_json's removal).
CORE22_COMMITS = ["9c0cd67", "9f31474"]
# The machinery the issue names, by group; every other module is a feature of another issue or
# was left alone by both.
MACHINERY = {
    "recording": ["recording.rs"],
    "trace": ["trace.rs", "columns.rs"],
    "event": ["event.rs", "delay_line.rs"],
    "pool/packet": ["pool.rs", "packet.rs"],
    "sim": ["sim.rs"],
    "sender/receiver": ["tcp/sender.rs", "tcp/receiver.rs", "milestones.rs", "tcp/harness.rs", "tcp/recovery_tests.rs"],
    "scenario": ["scenario.rs", "scenario/mod.rs", "scenario/parse.rs", "scenario/ranges.rs", "scenario/defaults.rs",
                 "scenario/resolve.rs", "scenario/expand.rs", "scenario/written.rs"],
}
# Step 7's sender harness and its recovery tests came in through the Linux profile's merge;
# both are test modules as a whole (`#[cfg(test)]` in tcp/mod.rs).
ISSUE_FILES = {"tcp/harness.rs", "tcp/recovery_tests.rs"}


def git(*args: str) -> str:
    return subprocess.run(["git", *args], capture_output=True, text=True, check=True).stdout


def lines(commit: str) -> dict[str, tuple[int, int]]:
    out = {}
    for path in git("ls-tree", "-r", "--name-only", commit, SRC).split():
        if not path.endswith(".rs"):
            continue
        text = git("show", f"{commit}:{path}").splitlines()
        tests = next((len(text) - i for i, l in enumerate(text[:-1])
                      if l.strip() == "#[cfg(test)]" and text[i + 1].lstrip().startswith("mod ")
                      and text[i + 1].rstrip().endswith("{")), 0)
        path = path.removeprefix(SRC)
        out[path] = (len(text), len(text) if path in ISSUE_FILES else tests)
    return out


def net(a: str, b: str) -> collections.Counter:
    change = collections.Counter()
    for row in git("diff", "--numstat", a, b, "--", SRC).splitlines():
        added, removed, path = row.split("\t")
        change[path.removeprefix(SRC)] += int(added) - int(removed)
    return change


def row(name: str, r: list[int]) -> None:
    code = f"{r[0] - r[2]} -> {r[1] - r[3]} ({r[1] - r[3] - r[0] + r[2]:+d})"
    print(f"| {name} | {r[0]} -> {r[1]} | {r[1] - r[0]:+d} | {r[4]:+d} | {r[1] - r[0] - r[4]:+d} | {code} |")


def main() -> None:
    now = sys.argv[1] if len(sys.argv) > 1 else "HEAD"
    before, after = lines(BASE), lines(now)
    issue = collections.Counter()
    for merge in ISSUE_MERGES.values():
        issue.update(net(f"{merge}^1", merge))
    for commit in CORE22_COMMITS:
        issue.update(net(f"{commit}^1", commit))
    for path in ISSUE_FILES:
        issue[path] = after.get(path, (0, 0))[0] - before.get(path, (0, 0))[0]
    grouped = {f: g for g, files in MACHINERY.items() for f in files}
    rows = collections.defaultdict(lambda: [0, 0, 0, 0, 0])
    for path in set(before) | set(after):
        group = grouped.get(path, "features and the rest")
        b, a = before.get(path, (0, 0)), after.get(path, (0, 0))
        r = rows[group]
        r[0] += b[0]; r[1] += a[0]; r[2] += b[1]; r[3] += a[1]; r[4] += issue.get(path, 0)
    print(f"| module | lines {BASE} -> {now} | change | by issue 22 | by other issues | code (tests left out) |")
    print("|---|---|---|---|---|---|")
    total = [0, 0, 0, 0, 0]
    machinery = [0, 0, 0, 0, 0]
    for group in [*MACHINERY, "features and the rest"]:
        r = rows[group]
        total = [x + y for x, y in zip(total, r)]
        if group in MACHINERY:
            machinery = [x + y for x, y in zip(machinery, r)]
        row(group, r)
    row("**the machinery**", machinery)
    row("**the crate**", total)
    if "--files" in sys.argv:
        for path in sorted(set(before) | set(after)):
            b, a = before.get(path, (0, 0)), after.get(path, (0, 0))
            print(f"{path}\t{grouped.get(path, '-')}\t{b[0]}\t{a[0]}\t{issue.get(path, 0):+d}")


if __name__ == "__main__":
    main()
