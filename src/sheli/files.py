"""Writing the files a user names (``-o``, ``--svg``, the store of imported editions).

Every file sheli writes for a user goes through :func:`write_text`, :func:`write_bytes` or
:func:`writing`, which behave as a careful shell redirection would (docs/event-log.md, "Where
the log is written"):

- a symlink is followed: its target is written and the link stays a link;
- a character device or a FIFO (``/dev/null``, ``/dev/stdout``, a named pipe) is written into,
  never replaced; a directory, a block device or a socket is refused (:class:`WriteRefused`);
- a regular file, or a new one, is replaced whole: the text goes to a temporary file beside
  it, which is renamed over it only when complete, so a failure leaves the old file as it was
  and nothing half-written;
- a new file gets the mode the umask gives (0644 under umask 022); a replaced file keeps its
  mode (and, when sheli may, its owner).

This module sits below every layer (like :mod:`sheli.glossary`): the text layer stores
editions with it, the outputs and the CLI write with it.

>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> target, link = os.path.join(d, "log.jsonl"), os.path.join(d, "link.jsonl")
>>> os.symlink(target, link)
>>> write_text(link, "{}\\n")
>>> os.path.islink(link), open(target).read()
(True, '{}\\n')
>>> write_text(os.devnull, "into the device, not over it")
>>> os.path.exists(os.devnull) and not os.path.isfile(os.devnull)
True
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from sheli.errors import SheliError


class TooLarge(SheliError, OSError):
    """An input file larger than sheli reads for its purpose (:func:`read_at_most`)."""


def read_at_most(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of ``path``, or :class:`TooLarge` when it holds more than ``limit``; never
    more than ``limit + 1`` bytes are read (a device or a pipe that does not end included).

    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "a.csv")
    >>> _ = open(p, "w").write("12345")
    >>> read_at_most(p, 5)
    b'12345'
    >>> read_at_most(p, 4)
    Traceback (most recent call last):
    ...
    sheli.files.TooLarge: [Errno 27] larger than 4 bytes, the most read here: '...a.csv'
    >>> read_at_most("/dev/zero", 1 << 20)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    sheli.files.TooLarge: [Errno 27] larger than 1 MB, the most read here: '/dev/zero'
    """
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(errno.EFBIG, f"larger than {_size(limit)}, the most read here", str(path))
    return data


def _size(n: int) -> str:
    return f"{n >> 20} MB" if n >= 1 << 20 and not n % (1 << 20) else f"{n} bytes"


class WriteRefused(SheliError, OSError):
    """The path names something sheli does not write into (a directory, a block device, a
    socket); ``strerror`` says what it is."""


def write_text(path: str | os.PathLike[str], text: str, *, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` (newlines as ``\\n``), following the rules of this module.

    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "a.txt")
    >>> write_text(p, "射")
    >>> open(p, encoding="utf-8").read()
    '射'
    """
    write_bytes(path, text.encode(encoding))


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path``, following the rules of this module.

    >>> import os, stat, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "a.bin")
    >>> old = os.umask(0o022)
    >>> write_bytes(p, b"x")
    >>> _ = os.umask(old)
    >>> oct(stat.S_IMODE(os.stat(p).st_mode))
    '0o644'
    """
    _write(Path(path), lambda f: f.write(data))


def write_lines(path: str | os.PathLike[str], lines: Iterable[bytes]) -> None:
    """Write ``lines`` (bytes, each with its newline) to ``path`` one after another, by the
    rules of this module: what is written is never held whole.

    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "a.jsonl")
    >>> write_lines(p, (f"{n}\\n".encode() for n in range(3)))
    >>> open(p).read().split()
    ['0', '1', '2']
    """
    _write(Path(path), lambda f: f.writelines(lines))


@contextlib.contextmanager
def writing(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary file for a writer that needs a path of its own (chromium printing a PDF);
    when the block ends without error it becomes ``path`` by the rules of this module, and
    otherwise it is removed.

    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "out.pdf")
    >>> with writing(p) as tmp:
    ...     _ = tmp.write_bytes(b"%PDF")
    >>> open(p, "rb").read(), [f for f in os.listdir(os.path.dirname(p)) if f != "out.pdf"]
    (b'%PDF', [])
    """
    real, st = _target(Path(path))
    if st is not None and not stat.S_ISREG(st.st_mode):
        _check_writable_into(real, st)
        fd, name = tempfile.mkstemp(prefix="sheli-", suffix=real.suffix)
        os.close(fd)
        tmp = Path(name)
        try:
            yield tmp
            with open(tmp, "rb") as src:
                _write_into(real, st, lambda f: shutil.copyfileobj(src, f))
        finally:
            tmp.unlink(missing_ok=True)
        return
    fd, tmp = _open_temp(real, st)
    os.close(fd)
    try:
        yield tmp
        os.replace(tmp, real)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def temp_dir_beside(path: str | os.PathLike[str]) -> Path:
    """A new empty directory beside ``path`` (for a tree of files written whole and then
    renamed into place), with the mode the umask gives (0755 under umask 022).

    >>> import os, tempfile
    >>> d = temp_dir_beside(os.path.join(tempfile.mkdtemp(), "out"))
    >>> d.is_dir(), d.name.startswith(".out.")
    (True, True)
    """
    path = Path(path)
    for _ in range(100):
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            tmp.mkdir(0o777)  # the kernel applies the umask
            return tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(path.parent))


def _write(path: Path, fill: Callable[[BinaryIO], object]) -> None:
    real, st = _target(path)
    if st is not None and not stat.S_ISREG(st.st_mode):
        _check_writable_into(real, st)
        _write_into(real, st, fill)
        return
    fd, tmp = _open_temp(real, st)
    try:
        with os.fdopen(fd, "wb") as f:
            fill(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, real)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _target(path: Path) -> tuple[Path, os.stat_result | None]:
    """The file ``path`` names once every symlink is followed (a dangling link names the
    file it would point to), and its status, or None when it does not exist."""
    real = Path(os.path.realpath(path))
    try:
        return real, os.stat(real)
    except FileNotFoundError:
        return real, None


def _check_writable_into(real: Path, st: os.stat_result) -> None:
    mode = st.st_mode
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return
    what = (
        "a directory"
        if stat.S_ISDIR(mode)
        else "a block device"
        if stat.S_ISBLK(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "not a regular file"
    )
    code = errno.EISDIR if stat.S_ISDIR(mode) else errno.EINVAL
    raise WriteRefused(code, f"{what}: sheli writes only files, character devices and FIFOs")


def _write_into(real: Path, st: os.stat_result, fill: Callable[[BinaryIO], object]) -> None:
    # a device or a FIFO is written as `>` would: opened, not created or replaced
    fd = os.open(real, os.O_WRONLY | os.O_NOCTTY | os.O_CLOEXEC)
    with os.fdopen(fd, "wb") as f:
        fill(f)


def _open_temp(real: Path, st: os.stat_result | None) -> tuple[int, Path]:
    """A new file beside ``real``, created with the mode the umask gives (the kernel applies
    it), or with the mode and owner of the file it will replace."""
    for _ in range(100):
        tmp = real.with_name(f".{real.name}.{secrets.token_hex(4)}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
            break
        except FileExistsError:
            continue
    else:  # pragma: no cover - 100 collisions of 32 random bits
        raise FileExistsError(errno.EEXIST, "no free temporary name", str(real.parent))
    if st is not None:
        try:
            if (st.st_uid, st.st_gid) != (os.geteuid(), os.getegid()):
                with contextlib.suppress(PermissionError):
                    os.fchown(fd, st.st_uid, st.st_gid)
            os.fchmod(fd, stat.S_IMODE(st.st_mode))  # after chown, which may clear set-id bits
        except BaseException:
            os.close(fd)
            tmp.unlink(missing_ok=True)
            raise
    return fd, tmp
