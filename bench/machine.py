"""What a benchmark ran on, for the line every benchmark prints with its figures."""

from __future__ import annotations

import os
import platform
from pathlib import Path


def machine_description() -> str:
    model = platform.processor()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.partition(":")[2].strip()
                break
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, {model or 'unknown'}"
