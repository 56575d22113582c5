"""The address a ranked attempt keeps: a keyed hash, the same for one address (an IPv6 client
by its /64), different for another and under another key, never the address itself."""

from __future__ import annotations

from typing import Any

from django.test import RequestFactory

from infrastructure.client_ip import address_hash


def hashed(address: str) -> str:
    return address_hash(RequestFactory().get("/", REMOTE_ADDR=address))


def test_one_address_one_hash_and_never_the_address() -> None:
    assert hashed("203.0.113.7") == hashed("203.0.113.7")
    assert hashed("203.0.113.7") != hashed("203.0.113.8")
    assert "203.0.113" not in hashed("203.0.113.7")
    assert len(hashed("203.0.113.7")) == 32


def test_an_ipv6_client_counts_by_its_64() -> None:
    assert hashed("2001:db8:1:2::1") == hashed("2001:db8:1:2:ffff::9")
    assert hashed("2001:db8:1:2::1") != hashed("2001:db8:1:3::1")


def test_another_secret_key_gives_unrelated_hashes(settings: Any) -> None:
    before = hashed("203.0.113.7")
    settings.SECRET_KEY = "another key entirely, rotated"
    assert hashed("203.0.113.7") != before
