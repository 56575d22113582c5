from django.apps import AppConfig


class FairplayConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "fairplay"
    verbose_name = "Fair play"
