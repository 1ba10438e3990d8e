"""Writing result folders so that nobody ever sees a half-written one."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterator


@contextlib.contextmanager
def atomic_directory(target: str | os.PathLike[str]) -> Iterator[Path]:
    """Yields an empty temporary sibling of `target` to fill in.

    When the block succeeds the folder takes the place of `target` (an old one is replaced only
    then); when it fails the temporary folder is removed and `target` is left as it was.
    """
    target = Path(target)
    if target.exists() and not target.is_dir():
        raise NotADirectoryError(f"{target}: exists and is not a folder")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
    try:
        yield tmp
        # mkdtemp makes the folder private (0700); results are ordinary files.
        tmp.chmod(0o755)
        _replace(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _replace(new: Path, target: Path) -> None:
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
