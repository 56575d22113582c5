"""Accounts: players, sign-up and authentication (django-allauth)."""
