"""A property: no challenge or friend answer shows a player a card they have not seen, or a
result of the challenge before their own game of it is over.

Random deals (by seed, in each variant that deals one deck or two), played by the opener with
random commands (legal or not, undos and deals among them), sometimes to the end. After every
command each answer the opener (and the creator, their friend) can read about challenges and
friends is searched: no card of the deal appears in it (they show no card at all), nor the deal
code or seed; until the opener's game is over, no time, moves, undos or result either.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.api.conftest import Player
from tests.social.test_friends import befriend

pytestmark = pytest.mark.django_db

RESULT_KEYS = {"time", "moves", "undos", "won", "board"}


def _walk(value: Any) -> tuple[set[str], set[str]]:
    """The values (numbers as text) and the keys of a JSON answer."""
    strings: set[str] = set()
    keys: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            keys.add(key)
            inner_strings, inner_keys = _walk(item)
            strings |= inner_strings
            keys |= inner_keys
    elif isinstance(value, list):
        for item in value:
            inner_strings, inner_keys = _walk(item)
            strings |= inner_strings
            keys |= inner_keys
    elif isinstance(value, str):
        strings.add(value)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        strings.add(str(value))
    return strings, keys


def _visible_cards(game: dict[str, Any]) -> list[str]:
    return [card for column in game["columns"] for card in column["cards"]]


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    # Large enough never to equal a count or a time in an answer.
    seed=st.integers(min_value=10**9, max_value=2**40),
    variant=st.sampled_from(["scorpion", "wasp", "double-scorpion"]),
    data=st.data(),
)
def test_no_challenge_or_friend_answer_shows_an_unseen_card_or_an_early_result(
    make_player: Callable[[], Player], seed: int, variant: str, data: st.DataObject
) -> None:
    creator, opener = make_player(), make_player()
    befriend(creator, opener)
    source = creator.new_game(seed=seed, variant=variant)
    ended = creator.command(source["id"], {"type": "resign"}).json()
    deal_code: str = ended["code"]
    cards = {deal_code[i : i + 2] for i in range(0, len(deal_code.replace(" ", "")), 2)}
    made = creator.post("/api/v1/challenges/", {"game": source["id"]})
    assert made.status_code == 201, made.content
    challenge_id = made.json()["id"]
    game = opener.post(f"/api/v1/challenges/{challenge_id}/play/").json()
    assert game["code"] is None
    assert game["seed"] is None

    def check(finished: bool) -> None:
        answers = [
            opener.get(f"/api/v1/challenges/{challenge_id}/"),
            opener.get("/api/v1/challenges/"),
            opener.get("/api/v1/friends/"),
            creator.get("/api/v1/friends/"),
            creator.get("/api/v1/challenges/"),
        ]
        for response in answers:
            assert response.status_code == 200, response.content
            strings, _keys = _walk(response.json())
            assert not strings & cards, strings & cards
            assert deal_code not in response.content.decode()
            assert str(seed) not in strings
        challenge = answers[0].json()
        if finished:
            assert challenge["board"] is not None
        else:
            assert challenge["board"] is None
            assert not (_walk(challenge)[1] - {"board"}) & RESULT_KEYS

    check(finished=False)
    for _ in range(data.draw(st.integers(min_value=0, max_value=8), label="commands")):
        visible = _visible_cards(game)
        kind = data.draw(st.sampled_from(["move", "move", "deal", "undo"]), label="kind")
        body: dict[str, Any] = {"type": kind}
        if kind == "move" and visible:
            body["card"] = data.draw(st.sampled_from(visible), label="card")
            body["to"] = data.draw(st.integers(min_value=0, max_value=6), label="to")
        elif kind == "move":
            body = {"type": "undo"}
        response = opener.command(game["id"], body)
        if response.status_code == 200:
            game = response.json()
        if game["status"] in ("won", "resigned"):
            break
        check(finished=False)
    if game["status"] not in ("won", "resigned") and data.draw(st.booleans(), label="resign"):
        game = opener.command(game["id"], {"type": "resign"}).json()
    check(finished=game["status"] in ("won", "resigned", "abandoned"))
