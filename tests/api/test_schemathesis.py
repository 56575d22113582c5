"""Property-based fuzzing of the REST API from its own OpenAPI schema, with schemathesis.

The schema is fetched from ``/api/schema/`` through the WSGI application, in process, and every
generated request goes through that same application (middleware, routing, DRF, the database)
as a signed-up player (``X-Session-Token``). For every operation, with data that fits the
schema and with data that does not, it checks that:

- no response is a 5xx (not even docs/api.md's 503 deal_unavailable, which should never happen);
- every 4xx is ``application/problem+json`` with the problem members and a ``code``;
- every response passes schemathesis' checks: status code, content type, headers and body as
  documented, invalid input rejected, authentication enforced.

The operations under ``{game_id}`` are fuzzed twice: with generated ids (which name no game,
so 404s) and with the player's real games, new, played (moves, undos, a redo), resigned and won.

The served schema documents no error response, although docs/api.md promises a problem
document for every error: the fuzzed copy adds that promise to every operation (a ``4XX``
problem response), so that error bodies are validated too, and
``test_schema_documents_problem_responses`` pins the gap.

Defects found and not fixed here are listed in ``KNOWN_DEFECTS``: a failure that matches one
makes the fuzz test an xfail that names it, and a strict xfail test pins each of them, so that
the fix makes that test XPASS (fail) and says which entry to remove. Any other failure fails
the fuzz test, with the request and the response.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import hypothesis.errors
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.throttling import SimpleRateThrottle
from schemathesis import Case, CheckFunction, GenerationMode
from schemathesis.core.failures import Failure, FailureGroup
from schemathesis.schemas import BaseSchema
from schemathesis.specs.openapi import checks

from games.engine.deals import deal_code_for_seed
from games.engine.difficulty import BANDS
from games.models import WinnableDeal
from tests.api.conftest import WON_DEAL, Player

# The fuzzed requests go through the WSGI application, whose transactions must really commit.
pytestmark = pytest.mark.django_db(transaction=True)

SCHEMA_PATH = "/api/schema/"
PROBLEM_CONTENT_TYPE = "application/problem+json"
MAX_EXAMPLES = 30
MAX_BIGINT = 2**63 - 1
# Stands for a real game id in generated cases; replaced before the request is sent.
GAME_PLACEHOLDER = "00000000-0000-4000-8000-000000000000"
GAME_KINDS = ("new", "played", "resigned", "won")
HTTP_METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}
CARDS = [rank + suit for rank in "A23456789TJQK" for suit in "SHDC"]

PROBLEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["type", "title", "status", "detail", "code"],
    "properties": {
        "type": {"type": "string"},
        "title": {"type": "string"},
        "status": {"type": "integer", "minimum": 400, "maximum": 599},
        "detail": {"type": "string"},
        "code": {"type": "string", "pattern": "^[a-z][a-z_]*$"},
        "errors": {"type": "object"},
    },
}

# Checks left out of the fuzz run, and why:
# - positive_data_acceptance expects every schema-valid request to succeed, but the API rightly
#   refuses, with a 4xx problem, what no schema can express: deal codes that are not a deck,
#   unknown cards, the rules (422), finished games (409), one deal source at a time. The gaps
#   a schema could express are pinned below (test_request_schemas_refuse_unknown_fields,
#   test_header_formats_are_documented).
EXCLUDED_CHECKS: list[CheckFunction] = [checks.positive_data_acceptance]


def _is_event_stream(operation: dict[str, Any]) -> bool:
    return "text/event-stream" in operation.get("responses", {}).get("200", {}).get("content", {})


def _operations(paths: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Every operation but the event streams: the WSGI application answers them 503
    ``stream_unavailable`` by design (tests/streams fuzz nothing; they test the stream server)."""
    for path, item in paths.items():
        for method, operation in item.items():
            if method in HTTP_METHODS and not _is_event_stream(operation):
                yield method.upper(), path, operation


def _collect_operations() -> dict[tuple[str, str], set[str]]:
    """(METHOD, path) of every operation, from the schema generator, at collection time,
    with what its request can carry: the names of its parameters, and "body" if it has one."""
    from drf_spectacular.generators import SchemaGenerator

    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    return {
        (method, path): {p["name"] for p in operation.get("parameters", [])}
        | ({"body"} if "requestBody" in operation else set())
        for method, path, operation in _operations(paths)
    }


_REQUEST_PARTS = _collect_operations()
OPERATIONS = sorted(_REQUEST_PARTS)
GAME_OPERATIONS = [(method, path) for method, path in OPERATIONS if "{game_id}" in path]


def _cases(operations: list[tuple[str, str]], fixed: set[str]) -> list[Any]:
    """(operation, mode) pairs to fuzz: a negative case only where something in the request
    (besides the ``fixed`` parts) can be made invalid, so no generated case is skipped."""
    return [
        pytest.param(operation, mode, id=f"{_label(operation)}-{mode.value}")
        for operation in operations
        for mode in GenerationMode
        if mode is GenerationMode.POSITIVE or _REQUEST_PARTS[operation] - fixed
    ]


def _label(operation: tuple[str, str]) -> str:
    return " ".join(operation)


# --- Known defects --------------------------------------------------------------------------


@dataclass(frozen=True)
class Observation:
    """A response, and the schemathesis failure it caused (None: a 5xx, before any check)."""

    case: Case
    status: int
    failure: Failure | None


@dataclass(frozen=True)
class KnownDefect:
    name: str
    description: str
    matches: Callable[[Observation], bool]


def _operation_id(case: Case) -> str | None:
    operation_id = case.operation.definition.raw.get("operationId")
    return operation_id if isinstance(operation_id, str) else None


def _json_body(case: Case) -> dict[str, Any]:
    return case.body if isinstance(case.body, dict) else {}


def _query_values(case: Case, *names: str) -> list[str]:
    query = case.query or {}
    values = []
    for name in names:
        value = query.get(name)
        for item in value if isinstance(value, list) else [value]:
            if item is not None:
                values.append(str(item))
    return values


def _read_as_valid(case: Case, name: str) -> bool:
    """Whether the value the server reads (the last, when repeated) is empty or a number."""
    values = _query_values(case, name)
    return not values or values[-1] == "" or values[-1].isdecimal()


def _server_error(observation: Observation, operation_id: str) -> bool:
    return (
        observation.failure is None
        and observation.status == 500
        and _operation_id(observation.case) == operation_id
    )


def _failed(observation: Observation, code: str, operation_id: str) -> bool:
    failure = observation.failure
    return (
        failure is not None
        and failure.code == code
        and _operation_id(observation.case) == operation_id
    )


def _only_query_parameters_invalid(observation: Observation, *names: str) -> bool:
    """The negative case made nothing invalid but some of these query parameters."""
    message = observation.failure.message if observation.failure is not None else ""
    match = re.search(r"^Invalid component: parameters? (.+?) in query\b", message, re.M)
    invalid = set(re.findall(r"`([^`]+)`", match.group(1))) if match else set()
    return bool(invalid) and invalid <= set(names)


KNOWN_DEFECTS: list[KnownDefect] = []


def known_defect(observation: Observation) -> KnownDefect | None:
    return next((d for d in KNOWN_DEFECTS if d.matches(observation)), None)


# --- Fixtures -------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _no_rate_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rate limits are tested in test_limits.py; here they would only cut the fuzzing short
    (and answer 429 to schemathesis' unauthenticated probes)."""
    rates = dict.fromkeys(SimpleRateThrottle.THROTTLE_RATES, "1000000/min")
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)


@pytest.fixture
def application(settings: Any) -> Any:
    # schemathesis' WSGI client sends "Host: localhost", Django's test client "testserver".
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "localhost"]
    from scorpion_site.wsgi import application

    return application


# The schema as the application serves it, fetched through it once per test process: the same
# document for every test here (it depends on no request), and a test gets a copy of its own.
_served: dict[str, dict[str, Any]] = {}


@pytest.fixture
def served_schema(application: Any) -> dict[str, Any]:
    if SCHEMA_PATH not in _served:
        _served[SCHEMA_PATH] = schemathesis.openapi.from_wsgi(SCHEMA_PATH, application).raw_schema
    return copy.deepcopy(_served[SCHEMA_PATH])


def with_problem_responses(raw_schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of the schema in which every operation documents docs/api.md's errors."""
    raw = copy.deepcopy(raw_schema)
    raw.setdefault("components", {}).setdefault("schemas", {})["FuzzProblem"] = PROBLEM_SCHEMA
    problem = {
        "description": "RFC 9457 problem details (docs/api.md)",
        "content": {PROBLEM_CONTENT_TYPE: {"schema": {"$ref": "#/components/schemas/FuzzProblem"}}},
    }
    for _method, _path, operation in _operations(raw["paths"]):
        responses = operation.setdefault("responses", {})
        responses.setdefault("4XX", problem)
    return raw


@pytest.fixture
def api_schema(application: Any, served_schema: dict[str, Any]) -> BaseSchema:
    schema = schemathesis.openapi.from_dict(with_problem_responses(served_schema))
    schema.app = application
    return schema


class Games:
    """The player's real games by kind; a new one per request for requests that may change
    a game."""

    def __init__(self, player: Player) -> None:
        self.player = player
        self._shared: dict[str, dict[str, Any]] = {}

    def make(self, kind: str) -> dict[str, Any]:
        game = self.player.new_game(code=WON_DEAL["code"])
        line: list[dict[str, Any]] = WON_DEAL["line"]
        undo, redo = {"type": "undo"}, {"type": "redo"}
        commands = {
            "new": [],
            "played": [*line[:8], undo, undo, redo],
            "resigned": [*line[:2], {"type": "resign"}],
            "won": line,
        }[kind]
        for command in commands:
            response = self.player.command(game["id"], command)
            assert response.status_code == 200, (command, response.content)
            game = response.json()
        return game

    def shared(self, kind: str) -> dict[str, Any]:
        if kind not in self._shared:
            self._shared[kind] = self.make(kind)
        return self._shared[kind]

    def get(self, kind: str, *, fresh: bool) -> dict[str, Any]:
        # A won game takes no command, so it is never changed and can always be shared.
        return self.make(kind) if fresh and kind != "won" else self.shared(kind)


@pytest.fixture
def difficulty_pool() -> None:
    """Winnable deals enough in every difficulty band that no fuzzed create of a band finds it
    run dry (a band run dry is 503 difficulty_unavailable: tests/api/test_difficulty.py)."""
    WinnableDeal.objects.bulk_create(
        WinnableDeal(
            seed=seed,
            deal_code=deal_code_for_seed(seed),
            certificate=[],
            difficulty_band=BANDS[seed % 3],
            difficulty_score=50,
        )
        for seed in range(3 * MAX_EXAMPLES)
    )


@pytest.fixture
def games(player: Player) -> Games:
    return Games(player)


# --- Strategies -----------------------------------------------------------------------------


def command_bodies() -> st.SearchStrategy[dict[str, Any]]:
    """Well-formed commands, mostly plausible ones, so that some are legal."""
    card = st.sampled_from(CARDS).flatmap(lambda c: st.sampled_from([c, c.lower()]))
    move = st.fixed_dictionaries(
        {"type": st.just("move"), "card": card},
        optional={"to": st.none() | st.integers(0, 6)},
    )
    other = st.fixed_dictionaries({"type": st.sampled_from(["deal", "undo", "redo", "resign"])})
    version = st.fixed_dictionaries({}, optional={"expected_version": st.integers(0, 60)})
    return st.tuples(move | other, version).map(lambda pair: {**pair[0], **pair[1]})


def game_bodies() -> st.SearchStrategy[dict[str, Any]]:
    """New-game requests at the edges of each deal source."""
    return st.one_of(
        st.just({}),
        st.fixed_dictionaries({"mode": st.sampled_from(["random", "daily", "winnable"])}),
        st.fixed_dictionaries({"seed": st.sampled_from([0, 1, MAX_BIGINT]) | st.integers(0)}),
        # PySolFC numbers go up to 10**20 (games.engine.deals).
        st.fixed_dictionaries(
            {"pysol_number": st.sampled_from([1, MAX_BIGINT, 10**20]) | st.integers(1, 10**20)}
        ),
        st.just({"code": WON_DEAL["code"].lower(), "mode": "seeded"}),
    )


# --- The checks -----------------------------------------------------------------------------


def parse_json(content: bytes) -> Any:
    try:
        return json.loads(content)
    except ValueError:
        return None


class Fuzz:
    """Sends generated cases; sorts what goes wrong into known defects and failures."""

    def __init__(self, player: Player) -> None:
        self.headers = {"X-Session-Token": player.token}
        self.known: dict[str, KnownDefect] = {}

    def _is_known(self, observation: Observation) -> bool:
        defect = known_defect(observation)
        if defect is not None:
            self.known[defect.name] = defect
        return defect is not None

    def check(self, case: Case) -> None:
        response = case.call(headers=self.headers)
        status = response.status_code
        body = parse_json(response.content)
        exchange = f"{case.as_curl_command()}\n-> {status} {response.content[:1000]!r}"
        code = body.get("code") if isinstance(body, dict) else None
        if status >= 500:
            if self._is_known(Observation(case, status, None)):
                return
            raise AssertionError(f"server error\n{exchange}")
        if status >= 400:
            content_type = response.headers.get("content-type", [""])[0].split(";")[0]
            assert content_type == PROBLEM_CONTENT_TYPE, f"not a problem document\n{exchange}"
            assert isinstance(body, dict), f"not a JSON object\n{exchange}"
            assert isinstance(code, str), f"no code\n{exchange}"
            assert code, f"empty code\n{exchange}"
            assert body.get("status") == status, f"status member differs\n{exchange}"
            assert {"type", "title", "detail"} <= set(body), f"problem members\n{exchange}"
        try:
            case.validate_response(response, headers=self.headers, excluded_checks=EXCLUDED_CHECKS)
        except FailureGroup as group:
            unknown = [
                failure
                for failure in group.exceptions
                if not self._is_known(Observation(case, status, failure))
            ]
            if unknown:
                failures = FailureGroup(unknown)
                failures.add_note(exchange)
                raise failures from None

    def run(self, strategy: st.SearchStrategy[Any], check: Callable[[Any], None]) -> None:
        @settings(
            max_examples=MAX_EXAMPLES,
            deadline=None,
            database=None,  # the cases name games of this run only
            suppress_health_check=[
                HealthCheck.too_slow,
                HealthCheck.filter_too_much,
                HealthCheck.data_too_large,
            ],
        )
        @given(strategy)
        def fuzz(example: Any) -> None:
            check(example)

        try:
            fuzz()
        except hypothesis.errors.Unsatisfiable:
            # E.g. a header that takes any string: nothing sent on the wire can be invalid.
            pytest.skip("schemathesis could make nothing in this request invalid")
        if self.known:
            pytest.xfail(
                "known defects: "
                + "; ".join(f"{d.name}: {d.description}" for d in self.known.values())
            )


# --- The fuzz tests -------------------------------------------------------------------------


@pytest.mark.parametrize(("operation", "mode"), _cases(OPERATIONS, set()))
def test_fuzz(
    api_schema: BaseSchema,
    player: Player,
    operation: tuple[str, str],
    mode: GenerationMode,
    difficulty_pool: None,
) -> None:
    """Every operation, with every value generated (a generated game id names no game)."""
    method, path = operation
    api_operation = api_schema[path][method]
    strategy = api_operation.as_strategy(generation_mode=mode)
    if mode is GenerationMode.POSITIVE and (method, path) == ("POST", "/api/v1/games/"):
        strategy |= game_bodies().flatmap(lambda body: api_operation.as_strategy(body=body))
    fuzz = Fuzz(player)
    fuzz.run(strategy, fuzz.check)


@pytest.mark.parametrize(("operation", "mode"), _cases(GAME_OPERATIONS, {"game_id"}))
def test_fuzz_real_games(
    api_schema: BaseSchema, games: Games, operation: tuple[str, str], mode: GenerationMode
) -> None:
    """The operations under {game_id} on the player's own games, in every state."""
    method, path = operation
    api_operation = api_schema[path][method]
    fixed = {"game_id": GAME_PLACEHOLDER}

    def cases(kind: str) -> st.SearchStrategy[tuple[str, Case]]:
        strategy = api_operation.as_strategy(generation_mode=mode, path_parameters=fixed)
        if mode is GenerationMode.POSITIVE and "{version}" in path:
            # Versions the game has, and the first one it has not.
            versions = st.integers(0, games.shared(kind)["version"] + 1)
            strategy = versions.flatmap(
                lambda version: api_operation.as_strategy(
                    path_parameters={**fixed, "version": version}
                )
            )
        if mode is GenerationMode.POSITIVE and path.endswith("/commands/"):
            strategy |= command_bodies().flatmap(
                lambda body: api_operation.as_strategy(path_parameters=fixed, body=body)
            )
        return st.tuples(st.just(kind), strategy)

    fuzz = Fuzz(games.player)

    def check(example: tuple[str, Case]) -> None:
        kind, case = example
        case.path_parameters["game_id"] = games.get(kind, fresh=method != "GET")["id"]
        fuzz.check(case)

    fuzz.run(st.one_of([cases(kind) for kind in GAME_KINDS]), check)


# --- Deterministic checks and known defects, pinned -----------------------------------------


def test_fuzzed_operations_are_the_served_ones(served_schema: dict[str, Any]) -> None:
    served = sorted((method, path) for method, path, _ in _operations(served_schema["paths"]))
    assert served == OPERATIONS


def test_every_operation_requires_authentication(
    application: Any, served_schema: dict[str, Any]
) -> None:
    from django.test import Client

    client = Client()
    for method, path, operation in _operations(served_schema["paths"]):
        assert operation.get("security"), f"{method} {path} declares no security"
        if (method, path) == ("POST", "/api/v1/guest/"):
            # Open to visitors by design: it makes the guest account (CSRF-protected, throttled
            # per address: tests/api/test_guests.py).
            continue
        if (method, path) == ("GET", "/api/v1/variants/"):
            # Public by design: the games of the family, the same for everyone
            # (tests/api/test_variants.py); still throttled like every request.
            assert client.get(path).status_code == 200
            continue
        for uuid_parameter in ("{game_id}", "{challenge_id}", "{invite_id}"):
            path = path.replace(uuid_parameter, GAME_PLACEHOLDER)  # a uuid, as their URLs take
        url = re.sub(r"\{[^}]+\}", "0", path)
        for headers in ({}, {"X-Session-Token": "not-a-session-token"}):
            response = client.generic(method, url, headers=headers)
            assert response.status_code == 401, (method, url, headers, response.content)
            assert response["Content-Type"] == PROBLEM_CONTENT_TYPE
            assert response.json()["code"] == "not_authenticated"


def test_schema_documents_problem_responses(served_schema: dict[str, Any]) -> None:
    undocumented = [
        f"{method} {path}"
        for method, path, operation in _operations(served_schema["paths"])
        if not any(
            code.startswith("4") and PROBLEM_CONTENT_TYPE in response.get("content", {})
            for code, response in operation["responses"].items()
        )
    ]
    assert not undocumented, f"no problem+json 4xx response: {undocumented}"


def test_request_schemas_refuse_unknown_fields(served_schema: dict[str, Any]) -> None:
    """The serializers refuse unknown fields (400), so the schema must not allow them."""
    components = served_schema.get("components", {}).get("schemas", {})
    open_bodies = []
    for method, path, operation in _operations(served_schema["paths"]):
        for media in operation.get("requestBody", {}).get("content", {}).values():
            reference = media["schema"].get("$ref", "")
            schema = components.get(reference.rsplit("/", 1)[-1], media["schema"])
            if schema.get("additionalProperties", True) is not False:
                open_bodies.append(f"{method} {path} {reference}")
    assert not open_bodies


def test_header_formats_are_documented(served_schema: dict[str, Any]) -> None:
    """The API refuses (400) an Idempotency-Key that is not 1 to 128 printable characters
    and an If-Match that is not one of its ETags; the schema allows any string for both."""
    loose = []
    for method, path, operation in _operations(served_schema["paths"]):
        for parameter in operation.get("parameters", []):
            schema, name = parameter.get("schema", {}), parameter["name"]
            if parameter["in"] != "header":
                continue
            if name == "Idempotency-Key" and (
                schema.get("minLength") != 1 or schema.get("maxLength") != 128
            ):
                loose.append(f"{method} {path} {name}")
            if name == "If-Match" and "pattern" not in schema:
                loose.append(f"{method} {path} {name}")
    assert not loose


def test_games_list_schema_is_paginated(served_schema: dict[str, Any]) -> None:
    response = served_schema["paths"]["/api/v1/games/"]["get"]["responses"]["200"]
    schema = response["content"]["application/json"]["schema"]
    if "$ref" in schema:
        schema = served_schema["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    assert schema.get("type") == "object"
    assert "results" in schema.get("properties", {})


def test_invalid_page_size_is_a_validation_error(player: Player) -> None:
    response = player.get("/api/v1/games/?page_size=abc")
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "validation_error"


def test_pysol_number_beyond_the_database_is_refused(player: Player) -> None:
    response = player.post("/api/v1/games/", {"pysol_number": 2**63})
    assert response.status_code == 400, response.content


def test_leaderboard_page_beyond_the_database_is_a_validation_error(player: Player) -> None:
    response = player.get("/api/v1/daily/2025-01-01/leaderboard/?page=461168601842738792")
    assert response.status_code == 400, response.content


def test_leaderboard_page_in_superscript_digits_is_a_validation_error(player: Player) -> None:
    response = player.get("/api/v1/daily/2025-01-01/leaderboard/?page=%C2%B2")
    assert response.status_code == 400, response.content


# --- Hostile requests to every operation, from the list of served operations ---------------

# Bodies no parser may be handed (infrastructure.problems.JsonBodyMiddleware), each with its code.
HOSTILE_BODIES = {
    "nested a thousand deep": (b"[" * 1000 + b"]" * 1000, "json_too_deep"),
    "a 5,000-digit number": (b'{"seed": ' + b"1" * 5000 + b"}", "malformed_json"),
    "NaN": (b'{"seed": NaN}', "malformed_json"),
    "not UTF-8": (b'{"code": "\xff"}', "malformed_json"),
    "an unpaired surrogate": (b'{"code": "\\udc00"}', "malformed_json"),
}


def _url(path: str, game_id: str) -> str:
    return re.sub(r"\{[^}]+\}", "0", path.replace("{game_id}", game_id))


@pytest.mark.parametrize("body", list(HOSTILE_BODIES))
def test_every_operation_with_a_body_refuses_hostile_json(
    served_schema: dict[str, Any], games: Games, body: str
) -> None:
    """Every operation that takes a body, present and future: a 400 problem, never a 500."""
    raw, code = HOSTILE_BODIES[body]
    with_body = [(m, p) for m, p in OPERATIONS if "body" in _REQUEST_PARTS[(m, p)]]
    assert with_body
    for method, path in with_body:
        url = _url(path, games.get("new", fresh=True)["id"])
        response = games.player.client.generic(method, url, raw, content_type="application/json")
        assert response.status_code == 400, (method, path, response.content)
        assert response["Content-Type"] == PROBLEM_CONTENT_TYPE
        assert response.json()["code"] == code, (method, path, response.content)


def test_every_operation_refuses_headers_no_parser_should_take(
    served_schema: dict[str, Any], games: Games
) -> None:
    """Integer-like headers far past Python's limit on digit strings: a 4xx, never a 500."""
    headers = {"If-Match": '"' + "7" * 5000 + '"', "Idempotency-Key": "k" * 100_000}
    # Closing the account goes last: the player needs it for everything else.
    for method, path in sorted(OPERATIONS, key=lambda op: op == ("DELETE", "/api/v1/me/")):
        url = _url(path, games.get("played", fresh=method != "GET")["id"])
        body = b'{"type": "deal"}' if "body" in _REQUEST_PARTS[(method, path)] else b""
        for name, value in headers.items():
            response = games.player.client.generic(
                method, url, body, content_type="application/json", headers={name: value}
            )
            assert response.status_code < 500, (method, path, name, response.content)
            if name in _REQUEST_PARTS[(method, path)]:
                assert response.status_code == 400, (method, path, name, response.content)
