from django.apps import AppConfig
from django.core import checks


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"

    def ready(self) -> None:
        # The games call the layers above them through settings that name code by dotted
        # path: checked at start-up, not at the first game that ends.
        from infrastructure.checks import wired_paths_import

        checks.register(wired_paths_import)
