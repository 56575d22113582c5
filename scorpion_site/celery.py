"""The Celery app: Redis as the broker, configuration from Django settings (CELERY_*)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorpion_site.settings")

app = Celery("scorpion")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
