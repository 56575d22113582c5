"""The staff audit log: who did what to which object, when, and why.

Every staff action is one row of Django's admin log (``django.contrib.admin.models.LogEntry``),
so the admin's own edits (which Django records there itself) and the custom actions of the
dashboard and the admin (hiding a result, regenerating a daily deal, suspending an app, exporting
a player's data...) are browsed in one place. The custom actions write through
``staff_action_record``, which puts the action's name and the reason staff gave in the entry's
message: "<action>: <reason>".
"""

from __future__ import annotations

from django.contrib.admin.models import ADDITION, CHANGE, DELETION, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db import models

ACTION_FLAGS = {"addition": ADDITION, "change": CHANGE, "deletion": DELETION}


def staff_action_record(
    *,
    actor_id: int,
    target: models.Model | type[models.Model],
    action: str,
    reason: str = "",
    kind: str = "change",
) -> LogEntry:
    """Record one staff action on ``target`` by the staff member ``actor_id``.

    ``action`` names what was done in a few words ("hid the result from the leaderboard");
    ``reason`` is why, as staff typed it. ``kind`` is the admin log's flag: addition, change or
    deletion. The entry is written in the caller's transaction, so an action that rolls back
    leaves no trace of having been done. ``target`` may be a model class for an action on its
    rows as a whole (topping up the winnable pool): the entry then names no one row.
    """
    message = f"{action}: {reason}" if reason else action
    if isinstance(target, type):
        object_id, object_repr = "", str(target._meta.verbose_name_plural)
    else:
        object_id, object_repr = str(target.pk), str(target)
    return LogEntry.objects.create(
        user_id=actor_id,
        content_type=ContentType.objects.get_for_model(target, for_concrete_model=False),
        object_id=object_id,
        object_repr=object_repr[:200],
        action_flag=ACTION_FLAGS[kind],
        change_message=message,
    )
