"""The ``scorpion`` command's entry point: the terminal client needs rich, which only the
``cli`` extra installs (the SDK alone needs httpx). Without it, say how to get it."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence

INSTALL_HINT = (
    "The scorpion terminal client needs the 'rich' package, which the SDK alone does not "
    "install.\nInstall the client with its extra:  pip install 'scorpion-client[cli]'\n"
    "(from a clone of the project:  pip install './client_sdk[cli]')"
)


def main(argv: Sequence[str] | None = None) -> int:
    if importlib.util.find_spec("rich") is None:
        print(INSTALL_HINT, file=sys.stderr)
        return 1
    from scorpion_client.cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
