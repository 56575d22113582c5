"""What the terminal client says besides the table: an error as one sentence, a game that
ended on another device."""

from __future__ import annotations

from rich.text import Text

from scorpion_client._sync import GameHandle
from scorpion_client.errors import ScorpionError
from scorpion_client.render import cards_text, problem_text


def ended_elsewhere(game: GameHandle) -> str:
    """What a game that ended on another device (under this terminal) leaves the player."""
    if game.is_won:
        return "The game was won on another device."
    if game.status == "resigned":
        return "The game was resigned on another device."
    return (
        "The game was left for a new game on another device: "
        "scorpion play --resume goes on with the game in play."
    )


def error_text(exc: ScorpionError) -> str:
    """An error as the player reads it: one sentence, columns numbered 1-7."""
    return problem_text(exc.body, exc.detail or exc.message)


def error_line(exc: ScorpionError) -> Text:
    """The error in red, its card codes drawn as the table draws cards ("8H can only go on
    the exposed 9H" -> "8♥ can only go on the exposed 9♥")."""
    return cards_text(error_text(exc), style="red")


def sentence_free(text: str) -> str:
    return text.strip().rstrip(".")


def dash(value: int | None) -> str:
    return "-" if value is None else str(value)
