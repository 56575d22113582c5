"""Display names by their skeleton (accounts/names.py): each player's name NFKC-normalised
and its skeleton stored, then unique.

Names chosen before this rule are kept, normalised, except those it refuses: a name that
reads as a reserved one ("Ｇｕｅｓｔ", "аdmin") and the later of two look-alike names (the
older profile keeps it). Those players show their masked e-mail again, as before they chose a
name, and may choose another.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations, models

from accounts.names import normalised, skeleton

# accounts.services.RESERVED_NAMES when this was written.
RESERVED = {"guest", "staff", "admin", "scorpion"}


def fill_skeletons(apps: Any, schema_editor: Any) -> None:
    Profile = apps.get_model("accounts", "Profile")
    reserved = {skeleton(name) for name in RESERVED}
    taken: set[str] = set()
    for profile in Profile.objects.exclude(display_name="").order_by("pk").iterator():
        name = normalised(profile.display_name)
        shape = skeleton(name)
        if shape in reserved or shape in taken or len(name) > 30:
            name, shape = "", ""
        else:
            taken.add(shape)
        profile.display_name, profile.name_skeleton = name, shape
        profile.save(update_fields=["display_name", "name_skeleton"])


class Migration(migrations.Migration):
    dependencies = [("accounts", "0004_spent_refresh_token")]

    operations = [
        migrations.AddField(
            model_name="profile",
            name="name_skeleton",
            field=models.CharField(blank=True, default="", max_length=120),
        ),
        migrations.RunPython(fill_skeletons, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="profile",
            constraint=models.UniqueConstraint(
                condition=models.Q(("name_skeleton", ""), _negated=True),
                fields=("name_skeleton",),
                name="profile_name_skeleton_unique",
            ),
        ),
    ]
