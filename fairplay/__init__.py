"""Fair play (docs/fair-play.md): the signals computed when a ranked daily is won, and the
staff's review of them. Stands above ``games`` and ``stats`` and below ``staff``; the games
tell it of a finished game through ``settings.GAME_FINISHED_HOOKS``. The decision to hide a
result lives in ``games`` (``games.services.leaderboard_result_hide``), where the boards see
it."""
