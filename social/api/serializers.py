"""Bodies and answers of the social endpoints (the OpenAPI schema is drawn from these)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from rest_framework import serializers

from games.api.serializers import StrictCharField, StrictSerializer
from games.models import DifficultyBand, GameStatus
from games.variants import variant_choices
from social.models import FriendshipStatus


class ChallengeCreateSerializer(StrictSerializer):
    game = serializers.UUIDField(
        help_text="One of your finished games whose deal it shows (not a daily still secret)."
    )


class BoardEntrySerializer(serializers.Serializer[Any]):
    player = serializers.CharField(help_text="A display name that reveals no e-mail address.")
    is_me = serializers.BooleanField()
    status = serializers.ChoiceField(choices=GameStatus.choices)
    won = serializers.BooleanField()
    time = serializers.FloatField(
        allow_null=True, help_text="Seconds from the first move to the end of the game."
    )
    moves = serializers.IntegerField()
    undos = serializers.IntegerField()
    finished_at = serializers.DateTimeField()


class ChallengeSummarySerializer(serializers.Serializer[Any]):
    id = serializers.UUIDField(help_text="Random: the link cannot be guessed.")
    url = serializers.CharField(help_text="The web page of the challenge: the link to send.")
    creator = serializers.CharField()
    variant = serializers.ChoiceField(choices=variant_choices())
    difficulty = serializers.ChoiceField(choices=DifficultyBand.choices, allow_null=True)
    created_at = serializers.DateTimeField()
    closed_at = serializers.DateTimeField(
        allow_null=True, help_text="Closed: nobody new may play it; the board stays."
    )
    players = serializers.IntegerField(help_text="Players who opened it (the creator apart).")


class ChallengeSerializer(ChallengeSummarySerializer):
    is_mine = serializers.BooleanField()
    game = serializers.UUIDField(
        allow_null=True,
        help_text="Your game of it: the creator's own game, or your attempt (null: not played).",
    )
    finished = serializers.BooleanField(help_text="Your game of it is over: the board is shown.")
    board = BoardEntrySerializer(
        many=True,
        allow_null=True,
        help_text="Every finished game of it, wins first, fastest first; null until yours is over.",
    )


class ChallengeListSerializer(serializers.Serializer[Any]):
    made = ChallengeSummarySerializer(many=True)
    played = ChallengeSummarySerializer(many=True)


class FriendRequestSerializer(StrictSerializer):
    player = StrictCharField(
        required=False,
        min_length=1,
        max_length=40,
        help_text="The display name as boards show it, with or without its tag (Ann#3f9c).",
    )
    invite = serializers.UUIDField(required=False, help_text="The id of an invite link.")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("player" in attrs) == ("invite" in attrs):
            raise serializers.ValidationError(
                {"non_field_errors": [gettext("give either player or invite")]}
            )
        return attrs


class BlockCreateSerializer(StrictSerializer):
    player = StrictCharField(required=False, min_length=1, max_length=40)
    friendship = serializers.IntegerField(
        required=False, min_value=1, help_text="Block the other side of this friend or request."
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("player" in attrs) == ("friendship" in attrs):
            raise serializers.ValidationError(
                {"non_field_errors": [gettext("give either player or friendship")]}
            )
        return attrs


class FriendshipSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    player = serializers.CharField()
    status = serializers.ChoiceField(choices=FriendshipStatus.choices)
    asked_by_me = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    accepted_at = serializers.DateTimeField(allow_null=True)


class InviteSerializer(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    url = serializers.CharField(help_text="The web page that accepts it: the link to send.")
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()


class BlockSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    player = serializers.CharField()
    created_at = serializers.DateTimeField()


class FriendsSerializer(serializers.Serializer[Any]):
    friends = FriendshipSerializer(many=True)
    incoming = FriendshipSerializer(many=True, help_text="Requests made to you.")
    outgoing = FriendshipSerializer(many=True, help_text="Requests you made.")
    invites = InviteSerializer(many=True, help_text="Your open invite links.")
    blocked = BlockSerializer(many=True)


class FriendsBoardEntrySerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField()
    player = serializers.CharField()
    time = serializers.FloatField()
    moves = serializers.IntegerField()
    finished_at = serializers.DateTimeField()
    is_me = serializers.BooleanField()


class FriendsBoardSerializer(serializers.Serializer[Any]):
    date = serializers.DateField()
    count = serializers.IntegerField()
    results = FriendsBoardEntrySerializer(many=True)
