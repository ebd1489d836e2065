"""A function run in a forked process, its result (or its error's traceback) sent back.

The render builds the viewer's text pane in one while it folds the run into frames, and a
run checks its walks in one while it goes on (:mod:`sheli.engine.walks`): each begins the
process with what this one holds (fork, not pickling), and waits for one answer at the end.

A fork and two pipes, not :mod:`multiprocessing`: a run needs nothing more, and importing
that package (its sockets, selectors and subprocesses) was some 6 ms of the start of every
``sheli run`` (docs/benchmarks.md, "The seventh sitting").

>>> Forked(sum, [1, 2]).result()
3
>>> def echo(conn):
...     return conn.recv() * 2
>>> f = Forked(echo, talk=True)
>>> f.conn.send(21)
>>> f.result()
42
"""

from __future__ import annotations

import atexit
import gc
import io
import os
import pickle
import signal
import struct
import traceback
from collections.abc import Callable
from typing import Any

#: a message's length, before its pickle
_HEADER = struct.Struct("!Q")


class Channel:
    """One end of a pipe or two: :meth:`send` a picklable value, :meth:`recv` the next one
    sent (EOFError once the other end is closed and all is read).

    >>> r, w = os.pipe()
    >>> ours, theirs = Channel(read=r), Channel(write=w)
    >>> theirs.send({"walk": 1}); theirs.close(); ours.recv()
    {'walk': 1}
    >>> ours.recv()
    Traceback (most recent call last):
    ...
    EOFError
    """

    def __init__(self, read: int | None = None, write: int | None = None) -> None:
        self._in = None if read is None else io.FileIO(read, "rb")
        self._out = None if write is None else io.FileIO(write, "wb")

    def send(self, value: Any) -> None:
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        assert self._out is not None, "a channel that only reads"
        view = memoryview(_HEADER.pack(len(data)) + data)
        while view:
            view = view[self._out.write(view) :]

    def recv(self) -> Any:
        assert self._in is not None, "a channel that only writes"
        (size,) = _HEADER.unpack(self._read(_HEADER.size))
        return pickle.loads(self._read(size))

    def _read(self, size: int) -> bytearray:
        got = bytearray(size)
        view = memoryview(got)
        while view:
            n = self._in.readinto(view)  # type: ignore[union-attr]
            if not n:
                raise EOFError
            view = view[n:]
        return got

    def close(self) -> None:
        for f in (self._in, self._out):
            if f is not None:
                f.close()


class Forked:
    """``fn(*args)`` in a forked process, begun at once; :meth:`result` waits for what it
    returns. With ``talk``, ``fn(conn, *args)``: ``conn`` a :class:`Channel` that receives
    what is sent to :attr:`conn` here while it runs."""

    def __init__(self, fn: Callable[..., Any], *args: Any, talk: bool = False) -> None:
        answer_r, answer_w = os.pipe()
        ask_r, ask_w = os.pipe() if talk else (None, None)
        # what exists now is moved out of the collector's sight before forking: a collection
        # in the child would otherwise touch every object it inherited, copying page after
        # page of memory it only reads
        gc.freeze()
        try:
            pid = os.fork()
        except OSError:
            gc.unfreeze()
            for fd in (answer_r, answer_w, ask_r, ask_w):
                if fd is not None:
                    os.close(fd)
            raise
        if pid == 0:  # the child: it answers, and ends without running this process's exits
            try:
                os.close(answer_r)
                if ask_w is not None:
                    os.close(ask_w)
                _answer(fn, args, Channel(read=ask_r) if talk else None, Channel(write=answer_w))
            finally:
                os._exit(0)
        gc.unfreeze()
        os.close(answer_w)
        if ask_r is not None:
            os.close(ask_r)
        self._pid: int | None = pid
        self.conn = Channel(read=answer_r, write=ask_w)
        self._name = getattr(fn, "__name__", "a process")

    def result(self) -> Any:
        """What ``fn`` returned; its error, with its traceback, as a RuntimeError. The
        process is ended (it ends by itself once it has answered)."""
        try:
            kind, value = self.conn.recv()
        except (EOFError, OSError):
            self.close()
            raise RuntimeError(f"the process of {self._name} ended without a result") from None
        except BaseException:  # (an interrupt while waiting: the process is ended too)
            self.close()
            raise
        self.conn.close()
        if self._pid is not None:
            # not waited for now: it is ending (giving its memory back takes some 2 ms, while
            # this process goes on), and is reaped by a later call, or as this one ends
            _ENDING.append(self._pid)
            self._pid = None
        _reap(os.WNOHANG)
        if kind == "error":
            raise RuntimeError(f"the process of {self._name} failed:\n{value}")
        return value

    def close(self) -> None:
        """End the process if it still runs."""
        self.conn.close()
        if self._pid is None:
            return
        pid, self._pid = self._pid, None
        try:
            if os.waitpid(pid, os.WNOHANG) == (0, 0):  # still running
                os.kill(pid, signal.SIGTERM)
                os.waitpid(pid, 0)
        except ChildProcessError:  # (reaped already)
            pass


#: the processes that have answered and not yet been reaped
_ENDING: list[int] = []


def _reap(flags: int = 0) -> None:
    """Reap the processes that have answered: those that have ended (``os.WNOHANG``), or
    all of them, waiting for each (as this process ends: none is left behind it)."""
    for pid in list(_ENDING):
        try:
            done = os.waitpid(pid, flags)[0] != 0
        except ChildProcessError:
            done = True
        if done:
            _ENDING.remove(pid)


atexit.register(_reap)


def _answer(
    fn: Callable[..., Any], args: tuple[Any, ...], asked: Channel | None, out: Channel
) -> None:
    try:
        answer: tuple[str, Any] = ("ok", fn(asked, *args) if asked is not None else fn(*args))
    except BaseException:
        answer = ("error", traceback.format_exc())
    try:
        out.send(answer)
    except OSError:
        pass  # nobody waits for it any more
