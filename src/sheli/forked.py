"""A function run in a forked process, its result (or its error's traceback) sent back.

The render builds the viewer's text pane in one while it folds the run into frames, and a
run checks its walks in one while it goes on (:mod:`sheli.engine.walks`): each begins the
process with what this one holds (fork, not pickling), and waits for one answer at the end.

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

import gc
import multiprocessing
import traceback
from collections.abc import Callable
from typing import Any


class Forked:
    """``fn(*args)`` in a forked process, begun at once; :meth:`result` waits for what it
    returns. With ``talk``, ``fn(conn, *args)``: ``conn`` its end of a pipe whose other end
    is :attr:`conn` here, for what is sent to it while it runs."""

    def __init__(self, fn: Callable[..., Any], *args: Any, talk: bool = False) -> None:
        ctx = multiprocessing.get_context("fork")
        self.conn, theirs = ctx.Pipe(duplex=talk)
        # what exists now is moved out of the collector's sight before forking: a collection
        # in the child would otherwise touch every object it inherited, copying page after
        # page of memory it only reads
        gc.freeze()
        try:
            self._proc = ctx.Process(target=_answer, args=(fn, args, theirs, talk), daemon=True)
            self._proc.start()
        finally:
            gc.unfreeze()
        theirs.close()
        self._name = getattr(fn, "__name__", "a process")

    def result(self) -> Any:
        """What ``fn`` returned; its error, with its traceback, as a RuntimeError. The
        process is ended."""
        try:
            kind, value = self.conn.recv()
        except (EOFError, OSError):
            raise RuntimeError(f"the process of {self._name} ended without a result") from None
        finally:
            self.close()
        if kind == "error":
            raise RuntimeError(f"the process of {self._name} failed:\n{value}")
        return value

    def close(self) -> None:
        """End the process if it still runs."""
        if self._proc.is_alive():
            self._proc.terminate()
        self._proc.join()
        self.conn.close()


def _answer(fn: Callable[..., Any], args: tuple[Any, ...], conn: Any, talk: bool) -> None:
    try:
        answer: tuple[str, Any] = ("ok", fn(conn, *args) if talk else fn(*args))
    except BaseException:
        answer = ("error", traceback.format_exc())
    try:
        conn.send(answer)
    except OSError:
        pass  # nobody waits for it any more
    finally:
        conn.close()
