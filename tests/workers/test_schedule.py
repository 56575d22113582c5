"""The beat schedule: every entry runs a task the workers know (no service needed)."""

from __future__ import annotations

from django.conf import settings

from scorpion_site.celery import app as celery_app


def test_every_beat_entry_names_a_registered_task() -> None:
    celery_app.loader.import_default_modules()  # what a worker imports when it starts
    scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert scheduled
    assert scheduled <= set(celery_app.tasks), scheduled - set(celery_app.tasks)
