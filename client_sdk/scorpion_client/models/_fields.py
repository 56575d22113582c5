"""Reading the fields of a JSON answer: strict about the types of the fields they read,
lenient about absence (an optional field the server leaves out becomes ``None``)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

T = TypeVar("T")


def _opt_int(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an integer, got {value!r}")
    return value


def _int(value: Any) -> int:
    result = _opt_int(value)
    if result is None:
        raise TypeError("expected an integer, got null")
    return result


def _opt_float(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"expected a number, got {value!r}")
    return float(value)


def _opt_str(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {value!r}")
    return value


def _str(value: Any) -> str:
    result = _opt_str(value)
    if result is None:
        raise TypeError("expected a string, got null")
    return result


def _opt_bool(value: Any) -> bool | None:
    if value is None:
        return None
    if not isinstance(value, bool):
        raise TypeError(f"expected a boolean, got {value!r}")
    return value


def _bool(value: Any, default: bool = False) -> bool:
    result = _opt_bool(value)
    return default if result is None else result


def _opt_datetime(value: Any) -> dt.datetime | None:
    text = _opt_str(value)
    if text is None:
        return None
    return dt.datetime.fromisoformat(text)


def _opt_date(value: Any) -> dt.date | None:
    text = _opt_str(value)
    if text is None:
        return None
    return dt.date.fromisoformat(text)


def _str_list(value: Any) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise TypeError(f"expected a list, got {value!r}")
    return [_str(item) for item in value]


def _list_of(value: Any, parse: Callable[[Mapping[str, Any]], T]) -> list[T]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise TypeError(f"expected a list, got {value!r}")
    return [parse(_mapping(item)) for item in value]


def _mapping(value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise TypeError(f"expected an object, got {value!r}")
    return value


def _extra(data: Mapping[str, Any], known: Iterable[str]) -> dict[str, Any]:
    names = set(known)
    return {key: value for key, value in data.items() if key not in names}
