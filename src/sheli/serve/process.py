"""``sheli serve`` as a process of its own: a free port, and waiting until it answers.

For the tests that kill the server (kill -9) and for the load benchmark, which both start it
with ``python -m sheli serve`` and must know when it is ready.

>>> 1024 <= free_port() <= 65535
True
"""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.request


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on now (the OS picks it)."""
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def wait_until_serving(proc: subprocess.Popen, url: str, timeout: float) -> None:
    """Poll ``url`` until it answers 200. If the process exits first, or ``timeout`` seconds
    pass (the process is then killed), raise :class:`RuntimeError` saying which, with the
    process's stderr when it was piped."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            err = proc.stderr.read() if proc.stderr is not None else ""
            err = err.decode() if isinstance(err, bytes) else err
            raise RuntimeError(f"sheli serve exited ({proc.returncode}): {err}")
        try:
            with urllib.request.urlopen(url, timeout=2) as res:
                if res.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"sheli serve did not answer {url} in {timeout:g} s")
