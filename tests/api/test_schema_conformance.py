"""What the server sends is what its OpenAPI schema says, in every variant: each real answer
of the main game endpoints (create, state, command, states, hints, chances, analysis) is
validated against its operation's response schema (jsonschema), with every object closed
(``additionalProperties: false``), so a field the schema does not declare fails too (as
``AnalysisStep``'s ``variant``, ``reserve`` and ``command.from`` did); the ``RateLimit-*``
fields the schema names are sent."""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

import jsonschema
import pytest
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer

from games.variants import CHANCES_VARIANTS, offered_variant_names
from tests.api.conftest import Player

pytestmark = pytest.mark.django_db


def _json_schema(node: Any) -> Any:
    """OpenAPI 3.0's schema objects as JSON Schema: ``nullable`` becomes a null alternative,
    and every object with properties is closed."""
    if isinstance(node, list):
        return [_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {key: _json_schema(value) for key, value in node.items()}
    if "properties" in converted and "additionalProperties" not in converted:
        converted["additionalProperties"] = False
    if converted.pop("nullable", False):
        return {"anyOf": [converted, {"type": "null"}]}
    return converted


@cache
def schema() -> dict[str, Any]:
    generated = SchemaGenerator().get_schema(request=None, public=True)
    document: dict[str, Any] = json.loads(OpenApiJsonRenderer().render(generated))
    return document


@cache
def components() -> dict[str, Any]:
    converted: dict[str, Any] = _json_schema(schema()["components"])
    return converted


def operation_path(path: str) -> str:
    """The schema's path template that ``path`` (a real URL path) matches."""
    for template in schema()["paths"]:
        pattern = re.sub(r"\{[^/]+\}", "[^/]+", template)
        if re.fullmatch(pattern, path):
            return str(template)
    raise AssertionError(f"no path of the schema matches {path}")


def check(method: str, path: str, answer: Any) -> Any:
    """Validate a real answer against its operation's schema for its status; its body."""
    operation = schema()["paths"][operation_path(path)][method]
    status = str(answer.status_code)
    responses = operation["responses"]
    response = responses.get(status) or responses[f"{status[0]}XX"]
    media = answer["Content-Type"].split(";")[0]
    declared = response["content"][media]["schema"]
    body = answer.json()
    validator = jsonschema.Draft202012Validator(
        {**_json_schema(declared), "components": components()}
    )
    errors = sorted(validator.iter_errors(body), key=lambda error: list(error.path))
    assert not errors, f"{method.upper()} {path} {status}: " + "; ".join(
        f"{list(error.path)}: {error.message}" for error in errors[:5]
    )
    # The rate-limit fields the schema names are sent, as whole numbers.
    named = [name for name in response.get("headers", {}) if name.startswith("RateLimit-")]
    assert len(named) == 3, (method, path, status)
    for name in named:
        assert int(answer[name]) >= 0, (name, answer[name])
    return body


def play(player: Player, variant: str) -> str:
    """A game of ``variant`` played a little through the API, each answer checked; its id."""
    created = player.post("/api/v1/games/", {"variant": variant, "seed": 11})
    assert created.status_code == 201, created.content
    game = check("post", "/api/v1/games/", created)
    base = f"/api/v1/games/{game['id']}/"
    check("get", base, player.get(base))
    hints = check("get", f"{base}hints/", player.get(f"{base}hints/"))
    move = next((hint for hint in hints["moves"]), None) if "moves" in hints else None
    command: dict[str, Any] = {"type": "deal"}
    if move is not None:
        command = {"type": "move", "card": move["card"], "to": move["to"], "from": move["from"]}
    commanded = player.post(f"{base}commands/", command)
    check("post", f"{base}commands/", commanded)
    check("get", f"{base}states/", player.get(f"{base}states/"))
    check("get", f"{base}states/1/", player.get(f"{base}states/1/"))
    chances = player.get(f"{base}chances/")
    if variant in CHANCES_VARIANTS:
        assert chances.status_code in (200, 202), chances.content
    else:
        assert chances.status_code == 409, chances.content
    check("get", f"{base}chances/", chances)
    resigned = player.post(f"{base}commands/", {"type": "resign"})
    assert resigned.status_code == 200, resigned.content
    check("post", f"{base}commands/", resigned)
    return str(game["id"])


@pytest.mark.parametrize("variant", offered_variant_names())
def test_real_answers_match_the_schema(player: Player, variant: str) -> None:
    game = play(player, variant)
    analysis = player.get(f"/api/v1/games/{game}/analysis/")
    assert analysis.status_code == 200, analysis.content
    body = check("get", f"/api/v1/games/{game}/analysis/", analysis)
    assert body["outcome"] != "unknown" or variant == "double-scorpion", body["outcome"]


def test_an_analysis_line_with_variant_fields_matches_the_schema(player: Player) -> None:
    """A line of a variant carries ``variant``, its moves ``from`` (and Three Blind Mice's
    table ``reserve``): a won deal of each, analysed from the deal."""
    for variant in ("three-blind-mice", "wasp"):
        game = play(player, variant)
        body = player.get(f"/api/v1/games/{game}/analysis/").json()
        if body.get("line"):
            step = body["line"][0]
            assert step["variant"] == variant
            break
    else:
        pytest.skip("no winnable deal among those played")
