from django.apps import AppConfig


class StaffConfig(AppConfig):
    """The staff dashboard and the replay viewer (its models are the other apps')."""

    name = "staff"
    default_auto_field = "django.db.models.BigAutoField"
