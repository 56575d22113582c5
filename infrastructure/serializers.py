"""Strict request parsing shared by every API view: unknown fields and wrong JSON types are
refused (``"5"`` is not a string, ``true`` is not a column), because a silently ignored typo in a
third-party client ("crad") is worse than a clear 400."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from rest_framework import serializers


class StrictCharField(serializers.CharField):
    """A JSON string only; its ``max_length`` counts the string as sent, as the schema's
    ``maxLength`` does (DRF counts it after trimming the whitespace: a 61-character name with a
    leading form feed passed a limit of 60, found by schemathesis)."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        if self.max_length is not None and len(data) > self.max_length:
            self.fail("max_length", max_length=self.max_length, length=len(data))
        return super().to_internal_value(data)


class StrictSerializer(serializers.Serializer[Any]):
    """Refuses fields it does not know, naming them."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, dict):
            raise serializers.ValidationError(
                {"non_field_errors": [gettext("the body must be a JSON object")]}
            )
        unknown = sorted(set(data) - set(self.fields))
        if unknown:
            raise serializers.ValidationError(
                {name: [gettext("unknown field")] for name in unknown}
            )
        return super().to_internal_value(data)


class NoBodySerializer(StrictSerializer):
    """The body of an operation that takes none: absent, or ``{}``. A field in it is refused
    as in every other body (``unknown field``), not ignored: a client that sends one expects
    it to mean something."""


def refuse_body_fields(data: Any) -> None:
    """A ValidationError (400 ``validation_error``, the same as a command's unknown field)
    unless ``data``, a request's parsed body, is empty."""
    NoBodySerializer(data=data).is_valid(raise_exception=True)
