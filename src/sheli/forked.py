"""A function run in a forked process, its result (or its error's traceback) sent back.

The render builds the viewer's text pane in one while it folds the run into frames, and a
run checks its walks in one while it goes on (:mod:`sheli.engine.walks`): each begins the
process with what this one holds (fork, not pickling), and waits for one answer at the end.

The process is :mod:`multiprocessing`'s, in its fork context: the one way sheli runs work
in another process (the render's drawing processes and the server's workers are too), so
that one library reaps, ends and reports them all (docs/architecture.md, "Other processes").

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

import contextlib
import multiprocessing
import signal
import traceback
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection
from typing import Any

from sheli import collector

#: the context of every process sheli starts: forked, so it begins with what this one holds
FORK = multiprocessing.get_context("fork")


def as_child() -> None:
    """What a process sheli forks does with signals, first thing: an interrupt (^C, to the
    whole process group) is the parent's to answer, and the parent ends it; a SIGTERM (the
    parent's ``terminate``) ends it at once. The command's handlers, inherited with the fork
    (sheli.cli.console), would raise in the child and, at a second signal, leave CPython's
    "Signal 15 ignored due to race condition" on stderr.

    >>> import signal
    >>> def probe(conn):
    ...     as_child()
    ...     conn.send((signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)))
    >>> read, write = FORK.Pipe(duplex=False)
    >>> p = FORK.Process(target=probe, args=(write,)); p.start()
    >>> read.recv() == (signal.SIG_IGN, signal.SIG_DFL); p.join()
    True
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)


#: the signals held while a process is forked (:func:`signals_held`)
_HELD = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """^C and SIGTERM held back while processes are forked: one that came between the fork
    and the child's :func:`as_child` would run the command's handler in the child (raising
    in multiprocessing's own start, a traceback on stderr). The parent gets them once the
    block ends, the child once :func:`as_child` has set its own.

    >>> with signals_held():
    ...     signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    True
    """
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


class Channel:
    """This process's end of the talk: :meth:`send` to the process, :meth:`recv` from it."""

    def __init__(self, read: Connection, write: Connection | None) -> None:
        self._in, self._out = read, write

    def send(self, value: Any) -> None:
        assert self._out is not None, "a process that was not begun to talk"
        self._out.send(value)

    def recv(self) -> Any:
        return self._in.recv()

    def close(self) -> None:
        for conn in (self._in, self._out):
            if conn is not None:
                conn.close()


class Forked:
    """``fn(*args)`` in a forked process, begun at once; :meth:`result` waits for what it
    returns. With ``talk``, ``fn(conn, *args)``: ``conn`` a connection that receives what
    is sent to :attr:`conn` here while it runs."""

    def __init__(self, fn: Callable[..., Any], *args: Any, talk: bool = False) -> None:
        answer_r, answer_w = FORK.Pipe(duplex=False)
        ask_r, ask_w = FORK.Pipe(duplex=False) if talk else (None, None)
        # daemonic: one still running as this process ends is ended with it (multiprocessing)
        self._process = FORK.Process(
            target=_answer, args=(fn, args, ask_r, answer_w, (answer_r, ask_w)), daemon=True
        )
        # the child inherits what exists now out of the collector's sight
        with collector.frozen(), signals_held():
            self._process.start()
        answer_w.close()
        if ask_r is not None:
            ask_r.close()
        self.conn = Channel(answer_r, ask_w)
        self._name = getattr(fn, "__name__", "a process")

    def result(self) -> Any:
        """What ``fn`` returned; its error, with its traceback, as a RuntimeError. The
        process is ended (it ends by itself once it has answered: it is not waited for
        then, but joined by a later start or as this process ends, by multiprocessing)."""
        try:
            kind, value = self.conn.recv()
        except (EOFError, OSError):
            self.close()
            raise RuntimeError(f"the process of {self._name} ended without a result") from None
        except BaseException:  # (an interrupt while waiting: the process is ended too)
            self.close()
            raise
        self.conn.close()
        multiprocessing.active_children()  # (joins those that have ended)
        if kind == "error":
            raise RuntimeError(f"the process of {self._name} failed:\n{value}")
        return value

    def close(self) -> None:
        """End the process if it still runs."""
        self.conn.close()
        if self._process.is_alive():
            self._process.terminate()
        self._process.join()


def _answer(
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    asked: Connection | None,
    out: Connection,
    theirs: tuple[Connection | None, ...],
) -> None:
    # the parent's ends, inherited, are closed: the child's reading then ends (EOFError)
    # when the parent is gone, and the parent's when the child is
    as_child()
    for conn in theirs:
        if conn is not None:
            conn.close()
    try:
        answer: tuple[str, Any] = ("ok", fn(asked, *args) if asked is not None else fn(*args))
    except BaseException:
        answer = ("error", traceback.format_exc())
    try:
        out.send(answer)
    except OSError:
        pass  # nobody waits for it any more
