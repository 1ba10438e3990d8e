"""Writing result folders: complete or absent, and never in place of anything tcpstart did not write.

Every folder tcpstart writes carries a marker file, `.tcpstart-result`, listing what it wrote. An
existing folder is replaced only when it is empty or when its marker lists every file and folder in
it; anything else (a user's folder, a result folder where the user added a file) is refused with
`OutputFolderError`, before a run starts where the caller checks early, and again under the lock.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterable, Iterator

MARKER = ".tcpstart-result"


class OutputFolderError(ValueError):
    """An output folder that tcpstart will not replace; the message is one line naming it."""


def check_output_folder(target: str | os.PathLike[str]) -> None:
    """Raises OutputFolderError unless `target` is absent, empty or a folder tcpstart wrote whole."""
    target = Path(target)
    _check_writable(target)
    if not target.parent.is_dir():
        return
    # Under the writers' lock, so that a folder another writer is replacing is not seen half-way.
    with _locked(target.parent):
        _check_replaceable(target)


def _check_writable(target: Path) -> None:
    """Raises OutputFolderError unless a folder can be made where `target` will be made, so that a run
    of hours does not end in a folder that cannot be written (/proc, a read-only mount). The test is a
    real one, a folder made and removed, because root passes every permission check but not these."""
    where = target.parent
    while not where.is_dir() and where != where.parent:
        where = where.parent
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".tcpstart-probe-", dir=where))
    except OSError as e:
        raise OutputFolderError(f"{target}: cannot write into {where}: {e.strerror}") from None


def _check_replaceable(target: Path) -> None:
    if target.is_symlink():
        raise OutputFolderError(f"{target}: is a symbolic link; give the folder itself or a new name")
    if not target.exists():
        return
    if not target.is_dir():
        raise OutputFolderError(f"{target}: exists and is not a folder")
    entries = _entries(target)
    if not entries:
        return
    written = _listed(target)
    if written is None:
        raise OutputFolderError(
            f"{target}: folder exists and was not written by tcpstart (no {MARKER} in it); "
            "choose another output folder or empty this one"
        )
    foreign = sorted(entries - written - {MARKER})
    if foreign:
        more = f" and {len(foreign) - 1} more" if len(foreign) > 1 else ""
        raise OutputFolderError(
            f"{target}: holds {foreign[0]}{more}, which tcpstart did not write; "
            "move it away or choose another output folder"
        )


@contextlib.contextmanager
def atomic_directory(target: str | os.PathLike[str]) -> Iterator[Path]:
    """Yields an empty temporary sibling of `target` to fill in.

    When the block succeeds the folder, with its marker, takes the place of `target`; when it fails
    the temporary folder is removed and `target` is left as it was. Writers to folders of one parent
    take turns (a lock on the parent), so two at once each land whole, the later one last.
    """
    target = Path(target)
    check_output_folder(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
    try:
        yield tmp
        write_marker(tmp, _entries(tmp))
        # mkdtemp makes the folder private (0700); results are ordinary files.
        tmp.chmod(0o755)
        with _locked(target.parent):
            _check_replaceable(target)
            replace_folder(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def check_own_files(folder: Path, files: Iterable[Path]) -> None:
    """Raises OutputFolderError if writing `files` into a result folder would overwrite a user's file."""
    written = _listed(folder) or set()
    for f in files:
        if f.exists() and f.relative_to(folder).as_posix() not in written:
            raise OutputFolderError(f"{f}: exists and was not written by tcpstart; move it away first")


def add_to_marker(folder: Path, files: Iterable[Path]) -> None:
    """Records files written later into a result folder (figures drawn from it) as tcpstart's."""
    written = _listed(folder) or set()
    write_marker(folder, written | {f.relative_to(folder).as_posix() for f in files})


def write_marker(folder: Path, entries: Iterable[str]) -> None:
    from tcpstart._core import __version__

    text = json.dumps({"tcpstart": __version__, "written": sorted(set(entries) - {MARKER})}, indent=1)
    (folder / MARKER).write_text(text + "\n")


def _entries(folder: Path) -> set[str]:
    """Every file and folder below `folder`, as paths relative to it."""
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")}


def _listed(folder: Path) -> set[str] | None:
    """What the marker says tcpstart wrote, or None without a readable marker."""
    try:
        written = json.loads((folder / MARKER).read_text())["written"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return set(written) if isinstance(written, list) else None


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def replace_folder(new: Path, target: Path) -> None:
    """Puts the folder `new` in the place of `target` (missing or not), `target` kept on failure."""
    try:
        # rename(2) replaces a missing or empty folder in one step.
        os.rename(new, target)
        return
    except OSError as e:
        if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
            raise
    # A folder with files cannot be replaced in one step: move it aside first, and back on failure.
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
    os.rename(target, old / target.name)
    try:
        os.rename(new, target)
    except OSError:
        os.rename(old / target.name, target)
        raise
    finally:
        shutil.rmtree(old, ignore_errors=True)
