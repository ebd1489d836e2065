"""What the benchmark scripts share: the machine line and writing their section of
docs/benchmarks.md. Not a benchmark itself (run_bench.py runs only ``bench_*.py``)."""

from __future__ import annotations

import os
import platform
import re
from pathlib import Path


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine() -> str:
    """E.g. ``2 CPUs (nproc), Intel(R) Xeon(R) Processor, Python 3.11.7 (CPython), Linux …``."""
    return (
        f"{os.cpu_count()} CPUs (nproc), {cpu_model()}, Python {platform.python_version()} "
        f"({platform.python_implementation()}), {platform.system()} {platform.release()}"
    )


def write_section(path: Path, heading: str, section: str) -> None:
    """Replace (or add) the ``## {heading}`` section of ``path``, keeping every other one."""
    text = path.read_text("utf-8") if path.exists() else "# Benchmarks\n"
    pattern = re.compile(rf"^## {re.escape(heading)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda _: section + "\n", text)
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    tmp = path.with_suffix(".md.tmp")
    tmp.write_text(text, "utf-8")
    os.replace(tmp, path)
    print(f"wrote {path}")
