"""The client's address, derived the same way for throttles, log-in limits and logs.

``X-Forwarded-For`` is written by whoever sends the request, so it is trusted from nobody
unless ``NUM_PROXIES`` says how many proxies of ours stand in front of the web process. Each
proxy appends the address it received the connection from, so with ``n`` proxies the ``n``-th
entry from the right is the one our outermost proxy wrote; everything to its left came from the
client and may be invented. With ``NUM_PROXIES=0`` (the default) the header is ignored and the
address is the peer of the connection (``REMOTE_ADDR``).

DRF's ``get_ident`` reads its own ``NUM_PROXIES`` with the same meaning, and allauth's
``ALLAUTH_TRUSTED_PROXY_COUNT`` too; settings.py sets both from ours, and the throttles and
the allauth adapter call this function, so that one rule holds everywhere.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress

from django.conf import settings
from django.http import HttpRequest

# Rate limits count an IPv6 client by its /64: one subscriber usually holds a whole /64 and
# could otherwise take a fresh address, and a fresh limit, for every request.
IPV6_PREFIX = 64


def _valid(address: str) -> str | None:
    try:
        return str(ipaddress.ip_address(address.strip()))
    except ValueError:
        return None


def client_ip(request: HttpRequest) -> str:
    """The address of the client, as far as our own proxies vouch for it."""
    remote = request.META.get("REMOTE_ADDR") or ""
    proxies: int = settings.NUM_PROXIES
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    if proxies <= 0 or not forwarded:
        return remote
    entries = forwarded.split(",")
    # The entry our outermost proxy wrote. Fewer entries than proxies means the request
    # reached an inner proxy directly; its left-most entry is then the best we have.
    vouched = _valid(entries[-min(proxies, len(entries))])
    # An entry that is not an address was not written by a proxy of ours (the setting counts
    # too many proxies): fall back to the peer, so that such clients share one limit.
    return vouched or remote


def rate_limit_ident(request: HttpRequest) -> str:
    """The client's address as rate limits count it: IPv4 as is, IPv6 by its /64."""
    address = client_ip(request)
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped is None:
        network = ipaddress.IPv6Network(f"{parsed}/{IPV6_PREFIX}", strict=False)
        return f"{network.network_address}/{IPV6_PREFIX}"
    if isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped is not None:
        return str(parsed.ipv4_mapped)
    return str(parsed)


def address_hash(request: HttpRequest) -> str:
    """A keyed hash of the client's address as rate limits count it (IPv6 by its /64), for
    telling that two accounts played from one address without storing the address
    (docs/fair-play.md): HMAC-SHA256 under the secret key, 32 hex digits. Rotating the key
    makes the old hashes unrelated to the new ones, which only weakens the signal for a day."""
    key = f"scorpion-fair-play-address:{settings.SECRET_KEY}".encode()
    digest = hmac.new(key, rate_limit_ident(request).encode(), hashlib.sha256)
    return digest.hexdigest()[:32]
