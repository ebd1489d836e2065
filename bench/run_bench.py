"""Run every benchmark in bench/ (``make bench``): each ``bench_*.py`` in turn, in its own process.

Arguments are passed on to each script (e.g. ``--write`` to update docs/benchmarks.md).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    failed = []
    for script in sorted(HERE.glob("bench_*.py")):
        print(f"== {script.name}", flush=True)
        rc = subprocess.run([sys.executable, str(script), *sys.argv[1:]], check=False).returncode
        if rc:
            failed.append(script.name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
