"""``sheli serve``: run the live event app (docs/serve.md).

>>> from click.testing import CliRunner
>>> "--db" in CliRunner().invoke(serve, ["--help"]).output
True
"""

from __future__ import annotations

import errno
import logging
import signal
import socket
from pathlib import Path

import click

from sheli.cli._util import Command


def default_db() -> Path:
    """``$SHELI_DATA_DIR/serve.sqlite3`` or the platform's user data dir (as the editions).

    >>> default_db().name
    'serve.sqlite3'
    """
    from sheli.text.editions import data_dir

    return data_dir() / "serve.sqlite3"


def _port_free(host: str, port: int) -> str | None:
    """None if we can listen on host:port, else why not."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return f"port {port} on {host} is already in use (another sheli serve?)"
            return f"cannot listen on {host}:{port}: {exc.strerror or exc}"
    return None


@click.command(cls=Command)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535))
@click.option(
    "--db",
    "db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The SQLite database (default: the user data dir's serve.sqlite3).",
)
@click.option(
    "--allow-host",
    "allow",
    multiple=True,
    help="A name the server answers for besides its address and the loopback names "
    "(e.g. the hall's DNS name); repeatable.",
)
def serve(host: str, port: int, db: Path | None, allow: tuple[str, ...]) -> None:
    """Run the live event app: open the printed address in a browser and create an event.

    \b
    sheli serve                       http://127.0.0.1:8000/
    sheli serve --host 0.0.0.0        for tablets on the same network
    sheli serve --db event.sqlite3    a database of your choosing
    """
    import uvicorn

    from sheli.serve import create_app
    from sheli.serve.http import (
        STOP_GRACE_S,
        HttpServer,
        Protocol,
        max_connections,
        raise_file_limit,
    )

    db = db or default_db()
    why = _port_free(host, port)
    if why:
        click.echo(f"sheli serve: {why}", err=True)
        raise SystemExit(2)
    files = raise_file_limit()
    Protocol.cap = max_connections(files)
    try:
        # a StoreError (another server holds the database) is a SheliError: the command's
        # one line and exit 2 (cli/_util.Command)
        app = create_app(db, ahead=True, hosts=(host, *allow))
    except KeyboardInterrupt:  # Ctrl-C while starting: nothing was served yet
        click.echo("sheli serve: stopped (SIGINT)", err=True)
        raise SystemExit(130) from None
    logging.basicConfig(format="%(asctime)s %(message)s", level=logging.WARNING)
    shown = f"[{host}]" if ":" in host else host
    click.echo(
        f"sheli serve: http://{shown}:{port}/  (database {db}; at most {Protocol.cap} "
        "connections; Ctrl-C to stop)",
        err=False,
    )
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        http=Protocol,
        log_level="warning",
        access_log=False,
        timeout_keep_alive=5,
        timeout_graceful_shutdown=STOP_GRACE_S,
        backlog=1024,
    )
    server = HttpServer(config, before_stop=app.srv.close_streams)
    server.run()
    if server.stopped_by is not None:
        # stopped by a signal: every acknowledged input is committed; the status is the
        # shell's for a process a signal ended (130 for Ctrl-C, 143 for SIGTERM)
        name = signal.Signals(server.stopped_by).name
        click.echo(f"sheli serve: stopped ({name})", err=True)
        raise SystemExit(128 + server.stopped_by)
