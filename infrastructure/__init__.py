"""Shared infrastructure of the service, used by every app and imported by none of their
domains' rules: the client's address, the fail-open cache, the API's throttles and base view,
problem details (RFC 9457), health and liveness of the background processes, the Celery queues
and beat's scheduler, logging helpers. It imports no app of the project (checked by
import-linter, `make lint`)."""
