from django.apps import AppConfig


class PlayersConfig(AppConfig):
    """No models of its own: the operations on a player's data as a whole, their API views,
    the task that purges idle guests, and staff's view of apps (whose kind marks games)."""

    name = "players"
    default_auto_field = "django.db.models.BigAutoField"
