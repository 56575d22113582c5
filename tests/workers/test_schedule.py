"""The beat schedule and the routes: every entry runs a task the workers know, the chances and
the analyses go to their own queue, and each queue gets a heartbeat (no service needed)."""

from __future__ import annotations

from django.conf import settings

from infrastructure.queues import DEFAULT_QUEUE, HINTS_QUEUE, QUEUES, queue_for
from scorpion_site.celery import app as celery_app


def test_every_beat_entry_names_a_registered_task() -> None:
    celery_app.loader.import_default_modules()  # what a worker imports when it starts
    scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert scheduled
    assert scheduled <= set(celery_app.tasks), scheduled - set(celery_app.tasks)


def queue_of(task: str, **options: object) -> str:
    """The queue Celery's router sends ``task`` to, as ``apply_async(**options)`` would."""
    route = celery_app.amqp.router.route(dict(options), task)
    return str(route["queue"].name)


def test_only_the_chances_and_the_analyses_go_to_the_hints_queue() -> None:
    celery_app.loader.import_default_modules()
    ours = [name for name in celery_app.tasks if not name.startswith("celery.")]
    routed = {name: queue_of(name) for name in ours}
    assert routed.pop("games.tasks.compute_chances") == HINTS_QUEUE
    assert routed.pop("games.tasks.analyse_game") == HINTS_QUEUE
    assert set(routed.values()) == {DEFAULT_QUEUE}, routed
    assert {queue.name for queue in celery_app.amqp.queues.values()} == set(QUEUES)


def test_the_services_ask_about_the_queue_celery_routes_each_task_to() -> None:
    # games.services asks queue_for whether a live worker takes a task; a name that matched no
    # task, or a route Celery read otherwise, would have it ask about the wrong worker.
    celery_app.loader.import_default_modules()
    for name in celery_app.tasks:
        if not name.startswith("celery."):
            assert queue_for(name) == queue_of(name), name


def test_beat_sends_a_heartbeat_to_each_queue_naming_it() -> None:
    heartbeats = [
        entry
        for entry in settings.CELERY_BEAT_SCHEDULE.values()
        if entry["task"] == "scorpion_site.heartbeat"
    ]
    sent = {queue_of(entry["task"], **entry.get("options", {})) for entry in heartbeats}
    assert sent == set(QUEUES)
    for entry in heartbeats:
        queue = queue_of(entry["task"], **entry.get("options", {}))
        # The task records the key of the queue it names: it must name the one it is sent to.
        assert tuple(entry.get("args") or (DEFAULT_QUEUE,)) == (queue,), entry


def test_a_fresh_beat_sends_every_heartbeat_at_once() -> None:
    # Not 30 s after it starts: until a queue's first heartbeat runs, the web processes see no
    # worker on it (the chances are computed in the requests, /healthz/workers/ answers 503).
    from infrastructure.beat import RUN_AT_START

    heartbeats = {
        name
        for name, entry in settings.CELERY_BEAT_SCHEDULE.items()
        if entry["task"] == "scorpion_site.heartbeat"
    }
    assert heartbeats <= set(RUN_AT_START), heartbeats - set(RUN_AT_START)
    assert set(RUN_AT_START) <= set(settings.CELERY_BEAT_SCHEDULE)
