"""A player's data as a whole, across the apps below: what spans ``accounts``, ``games`` and
``stats`` at once (the export, erasing the data or the account, purging idle guests, the kind
of an app written onto the games it played). The apps below import nothing of it."""
