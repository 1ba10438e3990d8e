"""The store of finished runs, so that a campaign resumes where it stopped.

A run is known by the SHA-256 of the tcpstart version and its fully resolved scenario (the core's
`validate` output, every default filled in, a canonical JSON text for a given version): two
spellings of one scenario ("0.2s", "200ms") are one run, and a new version simulates afresh.
Runs are stored by the batch they were simulated in, one file per batch, because creating a file
costs more than a millisecond run on some disks. Layout under the store's root:

    index                  which pack holds each run (see Store.index), as of the last campaign
                           that wrote or read the store; packs it does not name are read
    packs/<name>.parquet   a batch of runs: a row per run and flow with the columns `run` (the
                           key), `scenario` (the JSON given to the core), `summary` (summary.json
                           as text), `flow` and the flow's and bottleneck's metrics; or a batch
                           of measured groups (tcpstart.sweep.measure): a row per group with
                           `run`, `scenario` (a JSON list) and `measured` (the pickled value)
    traces/<key>/          a run's time series (Result.save), only when a campaign keeps them

A pack is named by the hash of its runs' keys, so a pack of a given name always holds the same
runs: the saved index stays right about every pack it names that is still there. A pack is
written under a temporary name unique to the process and thread, then renamed into place
(rename(2) is atomic), after the time series of its runs: a pack is there only when its runs are
complete, so an interrupted campaign loses no finished batch and leaves no half-written one. Two campaigns that store the same batch write the
same bytes (no times or hosts in a pack) and whichever rename comes last wins; a run stored in
two packs is one run.
"""

from __future__ import annotations

import hashlib
import io
import os
import threading
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence

import numpy as np
import orjson
import polars as pl

from tcpstart import _core
from tcpstart.results import Result
from tcpstart.scenario import ScenarioError
from tcpstart.sweep.results import flow_rows

# The version of the store's layout: a saved index of another one is not read.
FORMAT = 2

# The store's saved index (see Store.index): a campaign that starts reads this file and the
# packs written since, not the keys of every pack (two thirds of a rerun's time at 10,000 runs).
# NumPy arrays one after the other (np.save): the format, the sorted key prefixes and their
# packs, the recent ones (see Index) and the packs' names; written and read without copies.
INDEX = "index"

# Columns of a pack that hold a run's texts rather than its measurements.
TEXT_COLUMNS = ("scenario", "summary")

# The resolved scenario holds its seed once, at the top level (the core writes the keys of its
# tables sorted, and a quote inside a string is escaped): the runs of one cell differ only there,
# so one resolution serves them all (see seeded_keys).
_SEED = ',"seed":0,'


def resolve(scenario_json: str) -> str:
    """The core's resolved scenario as JSON text: every default filled in, keys sorted, so the
    same text for the same scenario in every process of one version."""
    try:
        return _core.validate(scenario_json)
    except ValueError as e:
        raise ScenarioError(str(e)) from None


def run_key(resolved: str, version: str = _core.__version__) -> str:
    """The store key of a run: a hash of the tcpstart version and its resolved scenario."""
    return hashlib.sha256(f"{version}\n{resolved}".encode()).hexdigest()


def seeded_keys(unseeded: str, version: str = _core.__version__) -> Callable[[int], str]:
    """seed -> the run_key of a scenario with seed `seed`, from its resolved text with seed 0
    (`unseeded`): what resolving it again would give, without asking the core; the text before
    the seed is hashed once, so each run hashes only what follows it."""
    if unseeded.count(_SEED) != 1:
        raise ValueError("the core's resolved scenario does not hold its seed once")
    head, tail = unseeded.split(_SEED)
    before = hashlib.sha256(f"{version}\n{head}".encode())

    def key(seed: int) -> str:
        h = before.copy()
        h.update(f',"seed":{seed},{tail}'.encode())
        return h.hexdigest()

    return key


def make_pack(keys: Sequence[str], scenarios: Sequence[str], summaries: Sequence[Dict[str, Any]]) -> bytes:
    """A pack file's bytes: the runs' flow rows with their keys, scenarios and summaries. A run
    without flows gets one row (flow null) so that it is found again."""
    rows: List[Dict[str, Any]] = []
    for key, scenario, summary in zip(keys, scenarios, summaries):
        text = orjson.dumps(summary).decode()
        for row in flow_rows(summary) or [{"flow": None}]:
            rows.append({"run": key, "scenario": scenario, "summary": text, **row})
    buffer = io.BytesIO()
    pl.DataFrame(rows, infer_schema_length=None).write_parquet(buffer)
    return buffer.getvalue()


def _prefix(key: str) -> int:
    return int(key[:16], 16)


class Index:
    """Which pack holds each run, by the first 64 bits of its key: 12 bytes a run in sorted
    arrays, so that a store of millions of runs fits (a dict of keys would take 150 bytes a
    run). Runs added lately wait in a small dict until there are MERGE of them."""

    MERGE = 8192

    def __init__(self, arrays: Optional[Sequence[np.ndarray]] = None) -> None:
        """Empty, or from the arrays of `parts()`."""
        self._keys = np.empty(0, np.uint64)
        self._packs = np.empty(0, np.uint32)
        self._recent: Dict[int, int] = {}
        if arrays is not None:
            self._keys, self._packs, recent_keys, recent_packs = arrays
            self._recent = dict(zip(recent_keys.tolist(), recent_packs.tolist()))

    def add(self, keys: Iterable[str], pack: int) -> None:
        for key in keys:
            self._recent[_prefix(key)] = pack
        if len(self._recent) >= self.MERGE:
            self._merge()

    def _merge(self) -> None:
        if not self._recent:
            return
        keys_ = np.fromiter(self._recent.keys(), np.uint64, len(self._recent))
        packs = np.fromiter(self._recent.values(), np.uint32, len(self._recent))
        order = np.argsort(keys_)
        # Inserted into the sorted arrays where they belong, the keys' and then the packs': a
        # merge holds at most 20 bytes a run (the keys' old and new arrays and the packs'), not
        # a sort of all keys (about 45).
        at = np.searchsorted(self._keys, keys_[order])
        self._keys = np.insert(self._keys, at, keys_[order])
        self._packs = np.insert(self._packs, at, packs[order])
        self._recent = {}

    def get(self, key: str) -> Optional[int]:
        k = _prefix(key)
        pack = self._recent.get(k)
        if pack is not None or not len(self._keys):
            return pack
        i = int(np.searchsorted(self._keys, np.uint64(k)))
        return int(self._packs[i]) if i < len(self._keys) and int(self._keys[i]) == k else None

    def contains(self, keys: Sequence[str]) -> np.ndarray:
        """Whether each of `keys` is in the index, in one search of the sorted arrays (a
        campaign asks about a part of its design at a time)."""
        wanted = np.fromiter((_prefix(k) for k in keys), np.uint64, len(keys))
        found = np.zeros(len(keys), bool)
        if len(self._keys):
            at = np.minimum(np.searchsorted(self._keys, wanted), len(self._keys) - 1)
            found = self._keys[at] == wanted
        if self._recent:
            found |= np.fromiter((k in self._recent for k in wanted.tolist()), bool, len(keys))
        return found

    def parts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(key prefixes sorted (uint64), their packs (uint32), the recent runs' prefixes and
        packs): what the index is, without a merge (which would hold its arrays twice)."""
        n = len(self._recent)
        return self._keys, self._packs, np.fromiter(self._recent, np.uint64, n), np.fromiter(self._recent.values(), np.uint32, n)

    def renumber(self, numbers: np.ndarray) -> None:
        """Gives the runs of pack p the number numbers[p], leaving out those where it is -1."""
        self._merge()
        new = numbers[self._packs]
        kept = new >= 0
        self._keys, self._packs = self._keys[kept], new[kept].astype(np.uint32)

    def __len__(self) -> int:
        return len(self._keys) + len(self._recent)


class Store:
    """Finished runs in a folder, by key. The packs present when the index is read (see index)
    are in it; packs it writes itself are added as they are written."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self._lock = threading.Lock()
        self._index: Optional[Index] = None
        self._names: List[str] = []  # pack number -> file name
        self._numbers: Dict[str, int] = {}
        self._unsaved = False  # the index holds runs that the saved one lacks

    @property
    def packs(self) -> Path:
        return self.root / "packs"

    def _traces(self, key: str) -> Path:
        return self.root / "traces" / key

    def index(self, reread: bool = False) -> Index:
        """The index of the packs. On first use it is the store's saved index (INDEX) brought
        up to date with the packs present: those it lacks are read, those gone are left out;
        with `reread`, it is brought up to date again (packs that other campaigns wrote, or
        that were deleted, since). A pack's name is the hash of its keys, so what the index says
        of a pack that is still there is right. The saved index is rewritten when this brought
        it up to date, and by save_index."""
        with self._lock:
            if self._index is None:
                self._load()
                reread = True
            if reread:
                self._update()
            assert self._index is not None
            return self._index

    def _load(self) -> None:
        """The saved index, or an empty one when there is none (or it is not one)."""
        self._index, self._names, self._numbers = Index(), [], {}
        try:
            with open(self.root / INDEX, "rb") as f:
                if int(np.load(f, allow_pickle=False)) != FORMAT:
                    return
                keys, packs, recent_keys, recent_packs, names = (np.load(f, allow_pickle=False) for _ in range(5))
        except (OSError, ValueError, EOFError, TypeError):
            return
        typed = [a.dtype for a in (keys, packs, recent_keys, recent_packs)] == [np.uint64, np.uint32, np.uint64, np.uint32]
        if not typed or len(keys) != len(packs) or len(recent_keys) != len(recent_packs):
            return
        numbers = np.concatenate([packs, recent_packs])
        if (len(numbers) and int(numbers.max()) >= len(names)) or not bool(np.all(keys[1:] >= keys[:-1])):
            return
        self._index, self._names = Index((keys, packs, recent_keys, recent_packs)), names.tolist()
        self._numbers = {name: i for i, name in enumerate(self._names)}

    def _update(self) -> None:
        """Brings the index up to date with the packs present (see index)."""
        assert self._index is not None
        present = {e.name for e in os.scandir(self.packs) if e.name.endswith(".parquet") and not e.name.startswith(".")} if self.packs.is_dir() else set()
        kept = [name for name in self._names if name in present]
        changed = len(kept) < len(self._names)
        if changed:
            numbers = np.full(len(self._names), -1, np.int64)
            numbers[[self._numbers[name] for name in kept]] = np.arange(len(kept))
            self._index.renumber(numbers)
            self._names, self._numbers = kept, {name: i for i, name in enumerate(kept)}
        for name, keys in self._keys_of(sorted(present - self._numbers.keys())):
            self._index.add(keys, self._number(name))
            changed = True
        self._unsaved |= changed
        self._save()

    def save_index(self) -> None:
        """Saves the index in the store (INDEX) if it holds runs the saved one lacks."""
        if self._index is not None:
            with self._lock:
                self._save()

    def _save(self) -> None:
        if not self._unsaved or self._index is None:
            return
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = self.root / f".{INDEX}.{os.getpid()}-{threading.get_ident()}.tmp"
        with open(tmp, "wb") as f:
            for array in (np.int64(FORMAT), *self._index.parts(), np.array(self._names, dtype=str)):
                np.save(f, array, allow_pickle=False)
        # Atomic: a campaign reading the store sees this index or the one before, each right
        # about the packs it names.
        os.replace(tmp, self.root / INDEX)
        self._unsaved = False

    def _keys_of(self, names: List[str]) -> Iterator[tuple[str, List[str]]]:
        """(pack, its keys) of the packs `names`: one scan of all of them (a third of the CPU
        time of a read per pack), or, when a file is not a pack (a stray file, whose runs are
        then simulated again), a read per pack that leaves it out."""
        paths = [str(self.packs / name) for name in names]
        if not paths:
            return
        try:
            found = pl.scan_parquet(paths, schema={"run": pl.String}, extra_columns="ignore", include_file_paths="path").collect()
        except (OSError, pl.exceptions.PolarsError):
            for name, path in zip(names, paths):
                try:
                    yield name, pl.read_parquet(path, columns=["run"])["run"].to_list()
                except (OSError, pl.exceptions.PolarsError):
                    continue
            return
        for (path,), keys in found.group_by("path", maintain_order=True):
            yield Path(str(path)).name, keys["run"].to_list()

    def _number(self, name: str) -> int:
        number = self._numbers.get(name)
        if number is None:
            number = self._numbers[name] = len(self._names)
            self._names.append(name)
        return number

    def has(self, key: str, traces: bool = False) -> bool:
        return self.index().get(key) is not None and (not traces or self._traced(key))

    def contains(self, keys: Sequence[str], traces: bool = False) -> np.ndarray:
        """has() for each of `keys`, in one search of the index."""
        index = self.index()
        with self._lock:  # not while put() adds to it
            found = index.contains(keys)
        if traces:
            for i in np.flatnonzero(found).tolist():
                found[i] = self._traced(keys[i])
        return found

    def _traced(self, key: str) -> bool:
        return (self._traces(key) / "summary.json").is_file()

    def put(self, keys: Sequence[str], pack: bytes, results: Optional[Sequence[Result]] = None) -> None:
        """Stores a batch of finished runs (`pack` from make_pack); with `results`, their time
        series too, first."""
        index = self.index()
        for key, result in zip(keys, results or []):
            result.save(self._traces(key))
        self.packs.mkdir(parents=True, exist_ok=True)
        name = hashlib.sha256("\n".join(keys).encode()).hexdigest()[:32] + ".parquet"
        tmp = self.packs / f".{name}.{os.getpid()}-{threading.get_ident()}.tmp"
        tmp.write_bytes(pack)
        os.replace(tmp, self.packs / name)
        with self._lock:
            index.add(keys, self._number(name))
            self._unsaved = True

    def rows(self, keys: Iterable[str]) -> pl.DataFrame:
        """The flow rows (run, flow, metrics) of stored runs, each pack read once."""
        frames = []
        for pack, runs in self._by_pack(keys).items():
            # A scan that leaves the texts unread (a summary is about 3.6 KB) takes two thirds
            # of the CPU time of reading the whole pack; a campaign wants all of a pack's runs
            # but when the store is shared.
            frame = pl.scan_parquet(self.packs / self._names[pack]).drop(TEXT_COLUMNS).collect()
            frames.append(frame if frame["run"].n_unique() == len(runs) else frame.filter(pl.col("run").is_in(runs)))
        rows = pl.concat(frames, how="diagonal_relaxed") if frames else pl.DataFrame(schema={"run": pl.String})
        # A run stored in two packs (two campaigns that batched it differently) counts once.
        return rows.unique(["run", "flow"], keep="first", maintain_order=True)

    def measured(self, keys: Iterable[str]) -> Dict[str, bytes]:
        """The pickled values of measured groups (tcpstart.sweep.measure) by key, each pack read once."""
        found: Dict[str, bytes] = {}
        for pack, runs in self._by_pack(keys).items():
            wanted = set(runs)
            frame = pl.read_parquet(self.packs / self._names[pack], columns=["run", "measured"])
            found.update((k, v) for k, v in frame.iter_rows() if k in wanted)
        return found

    def _by_pack(self, keys: Iterable[str]) -> Dict[int, List[str]]:
        """Stored runs' keys by the number of the pack that holds them; a key not stored raises
        KeyError."""
        index = self.index()
        wanted: Dict[int, List[str]] = {}
        for key in keys:
            pack = index.get(key)
            if pack is None:
                raise KeyError(f"run {key[:12]} is not in the store {self.root}")
            wanted.setdefault(pack, []).append(key)
        return wanted

    def _texts(self, key: str) -> Dict[str, Any]:
        pack = self.index().get(key)
        if pack is None:
            raise KeyError(f"run {key[:12]} is not in the store {self.root}")
        found = pl.scan_parquet(self.packs / self._names[pack]).filter(pl.col("run") == key).select(TEXT_COLUMNS).head(1).collect()
        return found.row(0, named=True)

    def summary(self, key: str) -> Dict[str, Any]:
        """The stored summary of a run (the dict of Result.raw_summary)."""
        summary: Dict[str, Any] = orjson.loads(self._texts(key)["summary"])
        return summary

    def scenario(self, key: str) -> Dict[str, Any]:
        """The scenario a stored run was given (before the core resolved it)."""
        scenario: Dict[str, Any] = orjson.loads(self._texts(key)["scenario"])
        return scenario

    def result(self, key: str) -> Result:
        """A run's full Result, for a run stored with its time series."""
        if not self.has(key, traces=True):
            raise ValueError(f"run {key[:12]}: no time series stored; run the campaign with keep_traces (--traces)")
        return Result.load(self._traces(key))
