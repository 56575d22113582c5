"""Playing together: challenges (a friend races you on a deal you played) and friends (follow,
accept, block; a friends' daily board; notices on the feed). Above games, stats and accounts'
models: those know nothing of it (pyproject.toml's import contracts); the games tell it of a
finished game through ``settings.GAME_FINISHED_HOOKS``."""
