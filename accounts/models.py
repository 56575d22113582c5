"""What the accounts app stores beyond allauth's own models: a profile (guest or not, the name
shown on leaderboards), staff suspensions of third-party apps, and whether an app is a client
or a bot."""

from __future__ import annotations

from allauth.idp.oidc.models import Client
from django.conf import settings
from django.db import models
from django.utils import timezone


class AppSuspension(models.Model):
    """A staff decision that a third-party app may no longer act for anyone.

    While the row exists, the app's access tokens are refused by the API (401), and the app
    gets no new tokens: the consent page, the device flow and the token endpoint turn it
    away. Its tokens are kept, so lifting the suspension (deleting the row) restores the
    players' grants; a player who wants the app gone revokes it.
    """

    client = models.OneToOneField(
        Client, on_delete=models.CASCADE, primary_key=True, related_name="suspension"
    )
    reason = models.TextField(blank=True, help_text="Why; shown to staff only.")
    suspended_at = models.DateTimeField(default=timezone.now)
    suspended_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        verbose_name = "suspension"

    def __str__(self) -> str:
        return f"suspension of {self.client_id}"


class AppKind(models.TextChoices):
    """Who plays through a third-party app, as its developer declares at registration."""

    CLIENT = "client", "Client: a person plays through it"
    BOT = "bot", "Bot: it plays by itself"


class AppPlayer(models.Model):
    """Whether a third-party app is a client a person plays through, or a bot that plays by
    itself (its developer's declaration at registration; staff may change it). A bot's games
    never rank: a game records the kind of the app that started or played it
    (``Game.app_kind``), and every leaderboard leaves bots' games out (stats.selectors). An
    app without a row (registered before apps declared it) is a client."""

    client = models.OneToOneField(
        Client, on_delete=models.CASCADE, primary_key=True, related_name="player"
    )
    kind = models.CharField(max_length=8, choices=AppKind.choices, default=AppKind.CLIENT)
    changed_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "who plays"
        verbose_name_plural = "who plays"

    def __str__(self) -> str:
        return f"{self.client_id}: {self.kind}"


class Deck(models.TextChoices):
    """The card faces the web client draws: the classic two colours, or four colours (spades
    black, hearts red, diamonds blue, clubs green), which tell every suit apart by colour alone
    (for a player who reads the red suits or the black suits alike)."""

    CLASSIC = "classic", "Classic"
    FOUR_COLOUR = "four_colour", "Four-colour"


class Profile(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    # A guest: an account made on first play in a browser, with no e-mail and no password,
    # kept by the browser session; signing up turns it into an ordinary account (same row,
    # so its games and statistics stay). Idle guests are deleted (players.tasks).
    guest = models.BooleanField(default=False, db_index=True)
    # Shown on leaderboards instead of the masked e-mail when set (stats.selectors).
    display_name = models.CharField(max_length=30, blank=True, default="")
    # What the name looks like (accounts.names.skeleton): one player per skeleton, so that no
    # one takes a name that reads as another's ("Ann Lee" with a Cyrillic A is "Ann Lee").
    # Empty when the player has no name.
    name_skeleton = models.CharField(max_length=120, blank=True, default="")
    # The language the account reads the site in (accounts/language.py): one of
    # settings.LANGUAGES, or "" to follow the browser's Accept-Language.
    language = models.CharField(max_length=8, blank=True, default="")
    # How the browser client draws the cards (docs/web.md, "Card faces"): a setting of the
    # account, so that every device shows the player's choice.
    deck = models.CharField(max_length=16, choices=Deck.choices, default=Deck.CLASSIC)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            # Two players asking for look-alike names at once: one of them gets it.
            models.UniqueConstraint(
                fields=["name_skeleton"],
                condition=~models.Q(name_skeleton=""),
                name="profile_name_skeleton_unique",
            ),
            # A guest has no name of its own: leaderboards say "Guest" (stats.selectors).
            models.CheckConstraint(
                condition=models.Q(guest=False) | models.Q(display_name=""),
                name="profile_guest_has_no_name",
            ),
        ]

    def __str__(self) -> str:
        return f"profile of user {self.user_id}" + (" (guest)" if self.guest else "")


class SpentRefreshToken(models.Model):
    """A refresh token already traded for new tokens (each use replaces it: rotation), kept by
    its hash until it would have expired, so that its reuse is recognised.

    A spent refresh token presented again means two parties hold it, the app and someone who
    stole it, and the server cannot tell which is which: every token of the grant it came from
    (``grant_id``: the chain of refreshes since the player's consent, for this app and
    player) is revoked, and the player authorises the app again (RFC 9700, section 4.14.2).
    allauth deletes the row of a spent token, so without this its reuse would be an ordinary
    unknown token, refused but leaving the thief's newer tokens alive.
    """

    # allauth's hash of the token (accounts.oauth.services.refresh_token_hash), never the token.
    hash = models.CharField(max_length=255, unique=True)
    client = models.ForeignKey(Client, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    grant_id = models.CharField(max_length=64, blank=True)
    spent_at = models.DateTimeField(default=timezone.now)
    # The spent token's own expiry: after it, a replay would be refused as expired anyway.
    expires_at = models.DateTimeField(null=True, blank=True, db_index=True)

    def __str__(self) -> str:
        return f"spent refresh token of {self.client_id} for user {self.user_id}"
