"""The fast reading of a command body gives exactly what CommandSerializer gives, or leaves
the body to the serializer (whose answers, errors included, are the API's)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.exceptions import ValidationError

from games.api.serializers import CommandSerializer, _plain_command, command_from_body
from games.engine.errors import EngineError
from games.history import Command

CARDS = ["8H", "th", "Ks", "AC", "10H", "1H", "ZZ", "8H ", " 8H", "8\x00", "\uff18H", "", "8HHH"]
values = st.one_of(
    st.sampled_from(["move", "deal", "undo", "redo", "resign", "Move", "jump", ""]),
    st.sampled_from(CARDS),
    st.text(max_size=4),
    st.integers(min_value=-3, max_value=10),
    st.sampled_from([2**31 - 1, 2**31, 10**30, -(2**40)]),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.lists(st.integers(), max_size=2),
)
bodies = st.one_of(
    st.dictionaries(
        st.sampled_from(["type", "card", "to", "expected_version", "extra"]), values, max_size=4
    ),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["move"]), "card": st.sampled_from(CARDS)},
        optional={"to": values, "expected_version": values},
    ),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["deal", "undo", "redo", "resign"])},
        optional={"expected_version": values, "to": st.none(), "card": values},
    ),
    values,
)


def by_serializer(data: Any) -> tuple[Command, int | None] | None:
    serializer = CommandSerializer(data=data)
    if not serializer.is_valid():
        return None
    return serializer.to_command(), serializer.validated_data.get("expected_version")


@settings(max_examples=3000, deadline=None)
@given(bodies)
def test_the_fast_reading_agrees_with_the_serializer(data: Any) -> None:
    try:
        plain = _plain_command(data)
    except EngineError:
        # A well-formed body naming no card: the serializer accepts it, and its to_command()
        # raises the same engine error.
        with pytest.raises(EngineError):
            by_serializer(data)
        return
    if plain is not None:
        assert by_serializer(data) == plain


@pytest.mark.parametrize(
    "body",
    [
        {"type": "move", "card": "8H"},
        {"type": "move", "card": "th", "to": 3, "expected_version": 7},
        {"type": "undo"},
        {"type": "deal", "expected_version": 0},
        {"type": "resign", "expected_version": None},
    ],
)
def test_the_usual_bodies_take_the_fast_way(body: dict[str, Any]) -> None:
    assert _plain_command(body) is not None
    assert command_from_body(body) == by_serializer(body)


@pytest.mark.parametrize(
    "body",
    [
        {"type": "undo", "card": "8H"},
        {"type": "move"},
        {"type": "move", "card": "8H", "to": True},
        {"type": "move", "card": "8H", "crad": "x"},
        {"type": "undo", "expected_version": "3"},
        ["undo"],
    ],
)
def test_anything_else_is_answered_by_the_serializer(body: Any) -> None:
    assert _plain_command(body) is None
    with pytest.raises(ValidationError) as raised:
        command_from_body(body)
    serializer = CommandSerializer(data=body)
    assert not serializer.is_valid()
    assert raised.value.detail == serializer.errors
