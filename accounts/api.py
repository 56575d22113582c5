"""Account endpoints of the API that are not allauth's own."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from scorpion_site.api import ApiView


class MeView(ApiView):
    @extend_schema(
        operation_id="me_retrieve",
        responses={
            200: inline_serializer(
                "Me",
                {
                    "id": serializers.IntegerField(),
                    "email": serializers.EmailField(),
                    "date_joined": serializers.DateTimeField(),
                },
            )
        },
    )
    def get(self, request: Request) -> Response:
        user = request.user
        return Response(
            {
                "id": user.pk,
                "email": getattr(user, "email", ""),
                "date_joined": user.date_joined.isoformat(),  # type: ignore[union-attr]
            }
        )
