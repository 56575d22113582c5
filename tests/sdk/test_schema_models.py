"""The SDK's models against the server's OpenAPI schema (``manage.py spectacular``), field by
field: every property of an answer is a field of its model (none left in ``extra``), every
field is a property (or is listed here with its reason), the types agree (nullable ones are
Optional, enums are the same Literal values), and requests send what the schema takes."""

from __future__ import annotations

import dataclasses
import datetime as dt
import inspect
import json
import types
import typing
from pathlib import Path
from typing import Any, Literal

import pytest
from django.core.management import call_command
from scorpion_client import models, progress
from scorpion_client._core import Ops

# The SDK's model of each component of the schema.
MODELS: dict[str, type] = {
    "Game": models.Game,
    "Column": models.Column,
    "PlayedByApp": models.PlayedByApp,
    "LeaderboardHidden": models.LeaderboardHidden,
    "Record": models.Action,
    "Event": models.Event,
    "Flip": models.Flip,
    "Collection": models.Collection,
    "HintMove": models.HintMove,
    "Hints": models.Hints,
    "Daily": models.Daily,
    "LeaderboardEntry": models.LeaderboardEntry,
    "Leaderboard": models.Leaderboard,
    "Stats": models.Stats,
    "Me": models.Me,
    "Analysis": models.Analysis,
    "AnalysisStep": models.AnalysisStep,
    "Variant": models.VariantInfo,
    "VariantFigures": models.VariantFigures,
    "Chances": models.Chances,
    "ActionChance": models.ActionChance,
    "DealDifficulty": models.DealDifficulty,
    "BandResults": models.BandResults,
    "Achievement": progress.Achievement,
    "Achievements": progress.Achievements,
    "Badge": progress.Badge,
    "Calendar": progress.Calendar,
    "CalendarDay": progress.CalendarDay,
    "Streaks": progress.Streaks,
}
# Components read by a model made for a larger one.
ALSO_READ_BY: dict[str, type] = {
    "MyRank": models.LeaderboardEntry,
    "Figures": models.Stats,
    "AnalysisPending": models.Analysis,  # the 202 answer: ready is False
    "ChancesPending": models.Chances,  # the 202 answer: ready is False
}

# Fields of the SDK that are not properties of the schema, with the reason.
SDK_ONLY: dict[tuple[type, str], str] = {
    (models.Action, "type"): "a Record has no type: the reader says move or deal by its card",
    (models.Analysis, "retry_after"): "of the pending answer (AnalysisPending), in one model",
    (models.Chances, "retry_after"): "of the pending answer (ChancesPending), in one model",
}

# Components the SDK keeps as plain dicts (small, open-ended bodies), with the reason.
READ_AS_DICT: dict[str, str] = {
    "AnalysisCommand": "a command's body: the Command TypedDict's shape",
    "HintDetail": "a hint's reason as data: a reason word and the cards and columns involved",
    "DifficultyMeasures": "a deal's measures: a small record of numbers (docs/difficulty.md)",
}

# Properties read into a field of another shape, with the reason.
RESHAPED: dict[tuple[str, str], str] = {
    ("Stats", "modes"): "Stats.modes: dict[str, Stats] by mode name (the Modes object)",
    ("Stats", "difficulty"): "Stats.difficulty: dict[str, BandResults] by band name "
    "(the DifficultyResults object)",
}


@pytest.fixture(scope="module")
def schema(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    path = Path(tmp_path_factory.mktemp("schema")) / "schema.json"
    call_command("spectacular", "--format", "openapi-json", "--file", str(path))
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def json_name(field: str) -> str:
    return "from" if field == "from_" else field


def model_fields(cls: type) -> dict[str, Any]:
    hints = typing.get_type_hints(cls, vars(inspect.getmodule(cls)))
    # A page of X (Leaderboard is a Page[LeaderboardEntry]): its results are a list of X.
    for base in getattr(cls, "__orig_bases__", ()):
        if typing.get_origin(base) is models.Page:
            hints["results"] = list[typing.get_args(base)[0]]  # type: ignore[misc]
    return {json_name(f.name): hints[f.name] for f in dataclasses.fields(cls) if f.name != "extra"}


def component_of(prop: dict[str, Any]) -> str | None:
    # A nullable enum is oneOf [the enum, NullEnum]; "nullable" says it may be null.
    parts = [*prop.get("allOf", []), *prop.get("oneOf", [])]
    ref = prop.get("$ref") or next(
        (
            part["$ref"]
            for part in parts
            if "$ref" in part and not part["$ref"].endswith("/NullEnum")
        ),
        None,
    )
    return ref.rsplit("/", 1)[-1] if ref else None


def union_args(annotation: Any) -> tuple[Any, ...]:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return typing.get_args(annotation)
    return (annotation,)


def agrees(annotation: Any, prop: dict[str, Any], components: dict[str, Any]) -> bool:
    """The SDK's annotation can hold every value the property may have."""
    options = union_args(annotation)
    if prop.get("nullable") and type(None) not in options:
        return False
    options = tuple(o for o in options if o is not type(None))
    name = component_of(prop)
    if name in READ_AS_DICT:
        return any(typing.get_origin(o) is dict for o in options)
    if name is not None:
        target = components[name]
        if "enum" in target:
            return any(
                typing.get_origin(o) is Literal and set(typing.get_args(o)) == set(target["enum"])
                for o in options
            )
        return any(o in (MODELS.get(name), ALSO_READ_BY.get(name)) for o in options)
    kind, fmt = prop.get("type"), prop.get("format")
    if kind == "array":
        items = prop["items"]
        return any(
            typing.get_origin(o) is list and agrees(typing.get_args(o)[0], items, components)
            for o in options
        )
    expected: dict[str | None, Any] = {
        "integer": int,
        "number": float,
        "boolean": bool,
        "string": {"date-time": dt.datetime, "date": dt.date}.get(fmt or "", str),
    }
    wanted = expected.get(kind)
    for option in options:
        if option is wanted:
            return True
        # A plain string the SDK types more narrowly (a status): a Literal of strings.
        if wanted is str and typing.get_origin(option) is Literal:
            return all(isinstance(v, str) for v in typing.get_args(option))
    return False


@pytest.mark.parametrize("component", sorted(MODELS))
def test_each_model_has_exactly_the_properties_of_its_schema(
    schema: dict[str, Any], component: str
) -> None:
    components = schema["components"]["schemas"]
    properties: dict[str, Any] = components[component]["properties"]
    cls = MODELS[component]
    fields = model_fields(cls)
    sdk_only = {name for (owner, name) in SDK_ONLY if owner is cls}

    missing = sorted(set(properties) - set(fields))
    assert not missing, f"{cls.__name__} leaves these in extra: {missing}"
    unknown = sorted(set(fields) - set(properties) - sdk_only)
    assert not unknown, f"{cls.__name__} has fields the schema does not: {unknown}"

    wrong = [
        f"{name}: {fields[name]} for {prop}"
        for name, prop in properties.items()
        if (component, name) not in RESHAPED and not agrees(fields[name], prop, components)
    ]
    assert not wrong, f"{cls.__name__}: types that disagree with the schema: {wrong}"


def test_every_answer_component_is_modelled(schema: dict[str, Any]) -> None:
    components = set(schema["components"]["schemas"])
    covered = set(MODELS) | set(ALSO_READ_BY)
    requests = {
        "GameCreateRequest",
        "CommandRequest",
        "PatchedMeUpdateRequest",
        "PersonalTokenCreateRequest",
        "ChallengeCreateRequest",
        "FriendRequestRequest",
        "BlockCreateRequest",
    }
    enums = {
        "ModeEnum",
        "AppKindEnum",
        "StatusEnum",
        "TypeEnum",
        "EventTypeEnum",
        "CommandTypeEnum",
        "OntoStateEnum",
        "DealEnum",
        "OutcomeEnum",
        "VariantEnum",
        "CopyEnum",
        "BuildEnum",
        "EmptyColumnEnum",
        "DifficultyEnum",
        "NullEnum",
        "DaysEnum",
        "ScopesEnum",
        # PATCH /api/v1/me/'s language: one of the site's languages, or "" (BlankEnum).
        "LanguageEnum",
        "BlankEnum",
        "FriendshipStatusEnum",
        "DeckEnum",  # Me.deck: the Deck literal
    }
    # Read by hand: a command's answer is a Game and its event; a page is a Page; deletion
    # counts are dicts; Modes is Stats.modes; Problem is read into the exceptions.
    by_hand = {
        "CommandResult",
        "GamePage",
        "AccountDeleted",
        "AccountDeletedCounts",
        "DataDeleted",
        "DataDeletedCounts",
        "Modes",
        "DifficultyResults",
        "DifficultyMeasures",
        "Problem",
        # A refused command's problem and its details are read into the exceptions (the
        # problem body stays on the exception); a hint's details are dicts on HintMove.
        "CommandProblem",
        "RefusalDetails",
        "HintDetail",
        # Pages of events and states are read into Page[Event] and Page[State] by hand; an
        # analysis step's command is the Command TypedDict.
        "EventPage",
        "StatePage",
        "State",
        "AnalysisCommand",
    }
    # Read as plain dicts: me.apps(), me.tokens(), me.create_token() and games.result() hand
    # the server's JSON over.
    not_yet = {"AuthorisedApp", "GameResult", "PersonalToken", "NewPersonalToken"}
    # Read as plain dicts too: client.social's challenges, friends and boards.
    social = {
        "Block",
        "BoardEntry",
        "Challenge",
        "ChallengeList",
        "ChallengeSummary",
        "Friends",
        "FriendsBoard",
        "FriendsBoardEntry",
        "Friendship",
        "Invite",
    }
    assert components - covered - requests - enums - by_hand - not_yet - social == set()


def test_a_command_result_is_a_game_and_its_event(schema: dict[str, Any]) -> None:
    components = schema["components"]["schemas"]
    result = set(components["CommandResult"]["properties"])
    assert result == set(components["Game"]["properties"]) | {"event"}
    assert [f.name for f in dataclasses.fields(models.CommandResult)][:2] == ["game", "event"]
    page = set(components["GamePage"]["properties"])
    assert page == {json_name(f.name) for f in dataclasses.fields(models.Page)}


def test_requests_send_what_the_schema_takes(schema: dict[str, Any]) -> None:
    components = schema["components"]["schemas"]
    command = components["CommandRequest"]["properties"]
    keys = set(typing.get_type_hints(models.Command))
    assert keys | {"expected_version"} == set(command)
    type_enum = components[component_of(command["type"]) or ""]["enum"]
    assert set(typing.get_args(models.CommandType)) == set(type_enum)

    create = components["GameCreateRequest"]["properties"]
    parameters = set(inspect.signature(Ops.games_create).parameters)
    assert parameters == set(create)
    mode_enum = components[component_of(create["mode"]) or ""]["enum"]
    assert set(typing.get_args(models.CreateMode)) <= set(mode_enum)
    assert set(typing.get_args(models.GameMode)) == set(mode_enum)
    status_enum = components["StatusEnum"]["enum"]
    assert set(typing.get_args(models.GameStatus)) == set(status_enum)
