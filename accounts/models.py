"""What the accounts app stores beyond allauth's own models."""

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
