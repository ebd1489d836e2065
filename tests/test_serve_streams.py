"""How a state reaches a stream: straight onto its socket when nothing is before it there,
else through the stream's task, the newest only (docs/serve.md, "Limits")."""

from __future__ import annotations

import pickle

import pytest

from sheli.serve.live import compute_derived, compute_derived_pickled, unpickle_derived
from sheli.serve.streams import WRITE_BUFFER, Subscriber, chunk


class FakeTransport:
    """What a stream's socket shows the server: bytes written, bytes not yet sent."""

    def __init__(self, backlog: int = 0, closing: bool = False) -> None:
        self.written: list[bytes] = []
        self.backlog = backlog
        self.closing = closing

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def is_closing(self) -> bool:
        return self.closing

    def get_write_buffer_size(self) -> int:
        return self.backlog


def test_a_state_goes_straight_onto_a_socket_that_keeps_up() -> None:
    sub = Subscriber({"id": 1, "role": "audience"})
    sub.transport = FakeTransport()
    for msg in (b"one", b"two"):
        sub.write(msg, chunk(msg))
    assert sub.transport.written == [b"3\r\none\r\n", b"3\r\ntwo\r\n"]
    assert sub.latest is None  # the task has nothing to do


def test_a_slow_socket_gets_the_newest_state_through_the_task() -> None:
    sub = Subscriber({"id": 1, "role": "audience"})
    sub.transport = FakeTransport(backlog=WRITE_BUFFER + 1)
    for msg in (b"one", b"two", b"three"):
        sub.write(msg, chunk(msg))
    assert sub.transport.written == []
    assert sub.latest == b"three"


def test_nothing_overtakes_a_state_the_task_holds_or_is_writing() -> None:
    sub = Subscriber({"id": 1, "role": "audience"})
    sub.transport = FakeTransport()
    sub.offer(b"first")  # e.g. the state given on connecting, not yet written
    sub.write(b"second", chunk(b"second"))
    assert sub.transport.written == [] and sub.latest == b"second"
    sub.latest = None
    sub.sending = True  # the task is in the middle of a write (waiting for the client)
    sub.write(b"third", chunk(b"third"))
    assert sub.transport.written == [] and sub.latest == b"third"


def test_a_closing_socket_is_not_written() -> None:
    sub = Subscriber({"id": 1, "role": "audience"})
    sub.transport = FakeTransport(closing=True)
    sub.write(b"x", chunk(b"x"))
    assert sub.transport.written == []


@pytest.mark.slow
def test_a_run_from_the_worker_is_the_run() -> None:
    config = {"rite": "xiangshe", "pairs": 0, "guests_shoot": False, "feast": False}
    here = compute_derived(config, 1.0, {}, {})
    there = unpickle_derived(compute_derived_pickled(config, 1.0, {}, {}))
    assert there.steps == here.steps
    assert there.anchors == here.anchors
    assert there.run.records == here.run.records  # read back when first asked for
    # and it survives being pickled again (the server keeps runs computed ahead)
    again = pickle.loads(pickle.dumps(there))
    assert again.run.records == here.run.records
