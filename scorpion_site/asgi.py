"""ASGI entry point: the stream server (``uvicorn scorpion_site.asgi:application``).

In production it serves the stream paths (the proxy sends only those here; gunicorn's sync
workers serve the rest, faster); ``make run`` serves everything with it, in one process.
"""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorpion_site.settings")
# Under ASGI, Django runs each request's synchronous code in a thread of its own: a connection
# kept for reuse (CONN_MAX_AGE > 0) stays open, idle, in every such thread, until PostgreSQL
# refuses new clients (measured: about 2 minutes at 16 clients). An ASGI process therefore
# closes each connection when its request ends, whatever the environment says.
os.environ["CONN_MAX_AGE"] = "0"

from django.core.asgi import get_asgi_application

django_application = get_asgi_application()

from games.streams.app import StreamRouter  # noqa: E402  (needs the apps loaded)

application = StreamRouter(django_application)
