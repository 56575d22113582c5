"""What the service keeps about an account besides Django's user: guest or not, and the name
shown on leaderboards."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Profile(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    # A guest: an account made on first play in a browser, with no e-mail and no password,
    # kept by the browser session; signing up turns it into an ordinary account (same row,
    # so its games and statistics stay). Idle guests are deleted (accounts.tasks).
    guest = models.BooleanField(default=False, db_index=True)
    # Shown on leaderboards instead of the masked e-mail when set (stats.selectors).
    display_name = models.CharField(max_length=30, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            # A guest has no name of its own: leaderboards say "Guest" (stats.selectors).
            models.CheckConstraint(
                condition=models.Q(guest=False) | models.Q(display_name=""),
                name="profile_guest_has_no_name",
            )
        ]

    def __str__(self) -> str:
        return f"profile of user {self.user_id}" + (" (guest)" if self.guest else "")
