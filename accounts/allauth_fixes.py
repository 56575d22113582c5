"""A fix to django-allauth, applied at start-up (accounts.apps), until allauth has its own.

allauth's headless password reset splits the key a client sends (``X-Password-Reset-Key`` on
GET, ``key`` in the body on POST) at its first "-" into the account's id in base 36 and a
token, and checks them with ``UserTokenForm``. When the id part is empty (a key such as
"-abc"), blank or holds a NUL, the form field refuses it, the cleaned value is None, and
``UserTokenForm._get_user(None)`` raised TypeError: a 500 for anyone who asks. A key whose id
part is not a string is simply no account's, as any other bad key: allauth then answers its
own 400 ``invalid_password_reset``.
"""

from __future__ import annotations

from typing import Any


def apply() -> None:
    from allauth.account.forms import UserTokenForm

    original = UserTokenForm._get_user
    if getattr(original, "fixed_by_scorpion", False):
        return

    def _get_user(self: Any, uidb36: object) -> Any:
        if not isinstance(uidb36, str):
            return None
        return original(self, uidb36)

    _get_user.fixed_by_scorpion = True  # type: ignore[attr-defined]
    UserTokenForm._get_user = _get_user
