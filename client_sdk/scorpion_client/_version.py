"""The SDK's version, written here only: the package metadata (pyproject.toml reads this
attribute), ``scorpion_client.__version__`` and the User-Agent all come from it."""

__version__ = "0.2.0"
