"""Every operation of the server's OpenAPI schema is reachable through the SDK, or is listed
here as deliberately left out, with the reason: the server and the SDK cannot drift apart
unnoticed. (allauth's /_allauth/ endpoints are not in that schema; the SDK's use of them is
tested in test_accounts.py.)"""

from __future__ import annotations

import re
from typing import Any

from drf_spectacular.generators import SchemaGenerator
from scorpion_client import ENDPOINTS

HTTP_METHODS = {"get", "post", "put", "patch", "delete"}

# (METHOD, path template) -> why the SDK does not offer it.
DELIBERATELY_LEFT_OUT: dict[tuple[str, str], str] = {
    ("POST", "/api/v1/guest/"): "browsers only: a guest lives in the browser's session cookie; "
    "an app signs up instead",
}


def normalise(path: str) -> str:
    """Path parameters by position, not name: ``/games/{id}/`` == ``/games/{game_id}/``."""
    return re.sub(r"\{[^}]+\}", "{}", path)


def schema_operations() -> set[tuple[str, str]]:
    schema: dict[str, Any] = SchemaGenerator().get_schema(request=None, public=True)
    return {
        (method.upper(), path)
        for path, item in schema["paths"].items()
        for method in item
        if method in HTTP_METHODS
    }


def sdk_operations() -> set[tuple[str, str]]:
    return {(e.method, normalise(e.template)) for e in ENDPOINTS if e.api}


def test_every_schema_operation_is_in_the_sdk_or_deliberately_left_out() -> None:
    operations = schema_operations()
    assert ("GET", "/api/v1/games/") in operations  # the schema is the real one
    left_out = {(method, normalise(path)) for method, path in DELIBERATELY_LEFT_OUT}
    missing = sorted(
        (method, path)
        for method, path in operations
        if (method, normalise(path)) not in sdk_operations() | left_out
    )
    assert not missing, (
        "operations of the server's API that the SDK cannot reach: add them to the SDK "
        f"(scorpion_client/endpoints.py and a method) or to DELIBERATELY_LEFT_OUT: {missing}"
    )


def test_left_out_entries_still_exist_and_say_why() -> None:
    operations = {(method, normalise(path)) for method, path in schema_operations()}
    for (method, path), reason in DELIBERATELY_LEFT_OUT.items():
        assert (method, normalise(path)) in operations, f"{method} {path} is gone: drop it"
        assert reason.strip()


def test_every_sdk_endpoint_is_used_by_a_method() -> None:
    """Each declared endpoint is built by some operation of the shared request specs (``Ops``,
    and ``SocialOps`` for challenges and friends; or, the consent page's URL, by the OAuth
    helpers)."""
    import inspect

    from scorpion_client import _core, endpoints, oauth, social

    source = (
        inspect.getsource(_core.Ops)
        + inspect.getsource(social.SocialOps)
        + inspect.getsource(oauth.authorization_url)
    )
    names = [name for name, value in vars(endpoints).items() if value in ENDPOINTS]
    assert len(names) == len(ENDPOINTS)
    unused = [name for name in names if f"ep.{name}." not in source]
    assert not unused
