"""Drawing a game in the terminal with rich."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from scorpion_client.models import Analysis, Chances, Event, Game, Hints

__all__ = [
    "card_text",
    "cards_text",
    "describe_event",
    "format_duration",
    "player_text",
    "problem_text",
    "render_analysis",
    "render_chances",
    "render_game",
    "render_hints",
    "sentence",
]

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
VARIANT_TITLES = {
    "scorpion": "Scorpion",
    "wasp": "Wasp",
    "wasp-ii": "Wasp II",
    "scorpion-tail": "Scorpion Tail",
    "three-blind-mice": "Three Blind Mice",
    "double-scorpion": "Double Scorpion",
    "double-scorpion-3-2": "Double Scorpion 3.2",
}
# The variants of two decks, where a card names a face of which two copies may lie face up.
TWO_DECK_VARIANTS = frozenset({"double-scorpion", "double-scorpion-3-2"})
RED_SUITS = frozenset("HD")
CELL = 5  # characters per column
HIDDEN = "░░░"


def card_label(card: str) -> str:
    """``"TH"`` -> ``"T♥"``."""
    return card[:-1] + SUIT_SYMBOLS.get(card[-1:], card[-1:])


def card_text(card: str) -> Text:
    # Black suits in the terminal's own text colour (bold): readable on dark and light
    # backgrounds alike, where "white" vanishes on a light one.
    style = "bold red" if card[-1:] in RED_SUITS else "bold"
    return Text(card_label(card), style=style)


# A card code in a server's text ("puts 9H on TH"): a rank and a suit letter, a word alone.
_CARD_CODE = re.compile(r"\b[A2-9TJQK][SHDC]\b")


def cards_text(text: str, style: str = "") -> Text:
    """A server's text with each card code in it drawn as the table draws cards:
    "puts 9H on TH" -> "puts 9♥ on T♥", the cards in their colours."""
    out = Text(style=style)
    start = 0
    for match in _CARD_CODE.finditer(text):
        out.append(text[start : match.start()])
        out.append_text(card_text(match.group()))
        start = match.end()
    out.append(text[start:])
    return out


# "column 3", "columns 0, 1 and 2", "columns 3-6": the numbers after the word.
_COLUMN = re.compile(r"\b(columns?) ((?:[0-9](?:, | and | or |-))*[0-9])\b")


def player_text(text: str) -> str:
    """A server's text with its column numbers (0-6, as the API counts) as players see them
    on the board (1-7): "in column 0" -> "in column 1", "columns 0, 1 and 2" -> "columns 1, 2
    and 3"."""

    def renumber(match: re.Match[str]) -> str:
        numbers = re.sub(r"[0-9]", lambda d: str(int(d.group()) + 1), match.group(2))
        return f"{match.group(1)} {numbers}"

    return _COLUMN.sub(renumber, text)


def sentence(text: str) -> str:
    """``text`` ending with one full stop (a server's message may already have one)."""
    text = text.strip()
    return text if not text or text[-1] in ".!?" else text + "."


def problem_text(body: Mapping[str, Any], fallback: str) -> str:
    """What to tell the player about an error answer: the problem's structured ``details``
    when the server gives them worded for players (``details.message``, columns 1-7), else
    its ``detail`` with the column numbers made 1-7."""
    details = body.get("details")
    if isinstance(details, Mapping):
        message = details.get("message")
        if isinstance(message, str) and message.strip():
            return sentence(message)
    detail = body.get("detail")
    return sentence(player_text(detail if isinstance(detail, str) and detail else fallback))


def format_duration(seconds: float | None) -> str:
    if seconds is None:
        return "0:00"
    total = int(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


def elapsed_now(game: Game, now: dt.datetime | None = None) -> float | None:
    """The game's time: the server's figure, plus the time since it answered while it runs."""
    if game.elapsed_seconds is None or game.status not in ("playing", "stuck"):
        return game.elapsed_seconds
    if game.updated_at is None:
        return game.elapsed_seconds
    now = now or dt.datetime.now(dt.UTC)
    return game.elapsed_seconds + max(0.0, (now - game.updated_at).total_seconds())


def render_game(game: Game, *, now: dt.datetime | None = None) -> RenderableType:
    """The table: seven columns (face-down cards as backs), the stock, collected suits, the
    number of moves and the time."""
    header = Text()
    for index in range(len(game.columns)):
        header.append(f"{index + 1:^{CELL}}", style="bold cyan")
    rows: list[Text] = [header]
    stacks: list[list[Text]] = []
    for column in game.columns:
        stack = [Text(HIDDEN, style="blue") for _ in range(column.hidden)]
        stack += [card_text(card) for card in column.cards]
        if not stack:
            stack = [Text("·", style="dim")]
        stacks.append(stack)
    depth = max((len(stack) for stack in stacks), default=0)
    for row in range(depth):
        line = Text()
        for stack in stacks:
            cell = stack[row] if row < len(stack) else Text("")
            pad = CELL - cell.cell_len
            line.append(" " * (pad // 2))
            line.append_text(cell)
            line.append(" " * (pad - pad // 2))
        rows.append(line)

    collected = " ".join(SUIT_SYMBOLS.get(s, s) for s in game.collected) or "none"
    # Three Blind Mice and Double Scorpion as PySolFC 3.2 dealt it have no stock: "none",
    # never "dealt".
    no_stock = game.variant in ("three-blind-mice", "double-scorpion-3-2")
    stock = f"{game.stock} (d to deal)" if game.stock else "none" if no_stock else "dealt"
    if game.reserve or game.variant == "three-blind-mice":
        # Reserve card i is picked from column len(columns) + i + 1 on screen ("8h from 11").
        first = len(game.columns) + 1
        reserve = Text("Reserve: ")
        for index, card in enumerate(game.reserve):
            reserve.append_text(card_text(card))
            reserve.append(f" (from {first + index})  ", style="dim")
        if not game.reserve:
            reserve.append("empty", style="dim")
        rows += [Text(""), reserve]
    status_style = {"won": "bold green", "stuck": "bold yellow", "resigned": "bold red"}
    footer = Text()
    footer.append(f"Stock: {stock}   Collected: {collected}   Moves: {game.moves}   ")
    footer.append(f"Time: {format_duration(elapsed_now(game, now))}   ")
    footer.append(game.status, style=status_style.get(game.status, "bold"))
    rows += [Text(""), footer]
    title = f"{VARIANT_TITLES.get(game.variant, game.variant)} · {game.mode}"
    if game.daily_date is not None:
        title += f" {game.daily_date.isoformat()}"
    if game.difficulty is not None:
        title += f" · {game.difficulty}"
    if game.is_practice:
        title += " · practice (does not rank)"
    return Panel(
        Group(*rows),
        title=title,
        subtitle=f"game {game.id[:8]} · version {game.version}",
        expand=False,
    )


def describe_event(event: Event) -> str:
    """One line on what a command did: ``"8♥ → column 4; turned up 2♣"``."""
    action = event.undone or event.redone or event
    if event.type == "resign":
        return "resigned"
    if event.type == "abandon":
        return "left for a new game"
    if action.type == "deal" or (action.card is None and action.dealt):
        what = "dealt " + " ".join(card_label(c) for c in action.dealt)
    elif action.card is not None:
        more = (action.count or 1) - 1
        count = f" and the {more} card{'s' if more > 1 else ''} on it" if more else ""
        target = f"column {action.to + 1}" if action.to is not None else "?"
        what = f"{card_label(action.card)}{count} → {target}"
    else:
        what = action.type
    if event.type == "undo":
        return f"undid: {what}"
    if event.type == "redo":
        what = f"redid: {what}"
    extras = [f"turned up {card_label(flip.card)}" for flip in action.flipped]
    extras += [f"collected {SUIT_SYMBOLS.get(c.suit, c.suit)}" for c in action.collected]
    return "; ".join([what, *extras])


def render_hints(hints: Hints, *, limit: int = 3, variant: str | None = None) -> Text:
    """The first ``limit`` hints, each as the player would type it. In a two-deck ``variant``
    each names the column its card is picked from ("2♦ → column 1 (from 4)": type ``2d 1 from
    4``): the other copy of the card may lie face up elsewhere and make the move too, and a
    move that does not say which is refused as ambiguous."""
    two_decks = variant in TWO_DECK_VARIANTS
    text = Text()
    if not hints.moves and not hints.deal:
        text.append("No moves available: undo, restart or resign.", style="yellow")
    for move in hints.moves[:limit]:
        text.append("Hint: ", style="bold cyan")
        text.append_text(card_text(move.card))
        text.append(f" → column {move.to + 1}")
        if move.copy == "lower":
            # Two copies in its column: type "<card> from <column> lower" for this one.
            text.append(f" (the lower one, from {(move.from_ or 0) + 1} lower)", style="dim")
        elif two_decks and move.from_ is not None:
            text.append(f" (from {move.from_ + 1})", style="dim")
        if move.reason:
            text.append_text(cards_text(f"  ({player_text(move.reason)})", style="dim"))
        text.append("\n")
    if hints.deal:
        text.append("You can still deal the stock (d).\n", style="cyan")
    return text


# What a winning chance is, said where one is shown (as the web client says it).
CHANCE_MEANING = (
    "if every card were known: the share of deals, drawn to match the cards you see, that a "
    "solver seeing all their cards still wins after the move. Seeing only the table, you win "
    "less often (about half as often following the hints): compare moves with it."
)


def render_chances(chances: Chances, *, limit: int | None = None) -> Text:
    """The legal actions' winning chances, the best first (at most ``limit``), each with its
    95% interval, after a line that says what such a chance means (columns 1-7, or 1-10 in the
    ten-column games)."""
    text = Text()
    if not chances.ready:
        text.append("Winning chances: still computing, ask again in a moment.\n", style="yellow")
        return text
    if not chances.actions:
        text.append("No moves available: undo, restart or resign.\n", style="yellow")
        return text
    text.append(f"Chance of winning after each move, {CHANCE_MEANING}\n", style="dim")
    ranked = sorted(chances.actions, key=lambda item: -item.chance)
    for action in ranked[:limit]:
        text.append("Chance: ", style="bold cyan")
        if action.type == "deal" or action.card is None:
            text.append("deal the stock")
        else:
            text.append_text(card_text(action.card))
            if action.from_ is not None and action.copy:
                text.append(f" ({action.copy} copy in column {action.from_ + 1})")
            text.append(f" → column {(action.to or 0) + 1}")
        text.append(
            f": {action.chance:.0%} ({action.low:.0%}-{action.high:.0%}, {action.samples} deals)\n"
        )
    return text


_DEAL_VERDICTS = {
    "won": "The deal could be won from the start.",
    "lost": "The deal could not be won, whatever the play.",
    "unknown": "Whether the deal could be won is unknown "
    "(the solver could not decide this deal within its budget).",
}


def render_analysis(analysis: Analysis) -> Text:
    """The verdict, where the game turned and a winning line, numbered (columns 1-7)."""
    text = Text()
    if not analysis.ready:
        text.append("The analysis is still being computed: ask again in a moment.\n", "yellow")
        return text
    text.append(_DEAL_VERDICTS.get(analysis.deal or "", f"Deal: {analysis.deal}") + "\n")
    outcome = analysis.outcome
    version = analysis.last_winnable_version
    if outcome == "won":
        text.append("You won it.\n", style="bold green")
    elif outcome == "slipped" and analysis.losing_event is not None:
        text.append(f"Still winnable after step {version}; ", style="bold")
        text.append(f"step {analysis.losing_event.seq} lost it: ", style="bold red")
        text.append(describe_event(analysis.losing_event) + "\n")
    elif outcome == "ended_winnable":
        text.append(f"The game ended at step {version} while it could still be won.\n", "bold")
    elif outcome == "unknown":
        text.append(
            "Where the game turned is unknown (the solver could not decide it within its "
            "budget).\n",
            "yellow",
        )
    if analysis.line:
        start = "the deal" if not analysis.line_version else f"step {analysis.line_version}"
        text.append(f"A winning line from {start}:\n", style="bold cyan")
        for number, step in enumerate(analysis.line, 1):
            command = step.command
            if command.get("type") == "deal":
                what = "deal"
            else:
                what = f"{card_label(str(command.get('card')))} → column {int(command['to']) + 1}"
            text.append(f"{number:>3}. {what}\n")
    return text
