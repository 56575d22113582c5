"""Logging helpers."""

from __future__ import annotations

import logging

from django.http import HttpRequest

from infrastructure.client_ip import client_ip


class ClientIPFilter(logging.Filter):
    """Adds ``client``: `` (client <address>)`` for records about a request, else nothing.

    The address is derived as the rate limits derive it (``NUM_PROXIES``), so a log line never
    names an address that a client merely claimed in ``X-Forwarded-For``.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        request = getattr(record, "request", None)
        address = client_ip(request) if isinstance(request, HttpRequest) else ""
        record.client = f" (client {address})" if address else ""
        return True
