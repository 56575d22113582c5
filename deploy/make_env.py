"""`make env`: write .env for Docker Compose from .env.example, with SECRET_KEY and
DAILY_DEAL_SECRET filled with fresh random values. An existing .env is never overwritten (its
secrets sign sessions and name the daily deals: replacing them would log everyone out and
change today's deal)."""

from __future__ import annotations

import secrets
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(target: Path = ROOT / ".env") -> int:
    if target.exists():
        print(f"{target} exists already: left as it is", file=sys.stderr)
        return 0
    generated = {
        "SECRET_KEY": secrets.token_urlsafe(48),  # 64 characters
        "DAILY_DEAL_SECRET": secrets.token_urlsafe(32),  # 43 characters
    }
    lines = []
    for line in (ROOT / ".env.example").read_text().splitlines():
        name = line.split("=", 1)[0]
        lines.append(f"{name}={generated[name]}" if name in generated else line)
    target.write_text("\n".join(lines) + "\n")
    target.chmod(0o600)
    print(f"wrote {target} with new SECRET_KEY and DAILY_DEAL_SECRET; then: docker compose up")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / ".env"))
