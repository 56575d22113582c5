"""The terminal client's views of the player's progress: ``scorpion calendar`` (a month of
dailies, a week a row) and ``scorpion achievements`` (with the monthly badges)."""

from __future__ import annotations

import calendar as month_layout

from rich.table import Table
from rich.text import Text

from scorpion_client.progress import Achievements, Calendar, CalendarDay
from scorpion_client.render import format_duration

WEEKDAYS = ("Mo", "Tu", "We", "Th", "Fr", "Sa", "Su")


def day_cell(day: CalendarDay) -> Text:
    """A day as the grid shows it: its number, then ✓ won on the day, ✓ (late) won late,
    … in play, ✗ played and not won, · playable; the fastest win's time and rank below."""
    text = Text(str(day.date.day), style="bold")
    if day.won and not day.late:
        text.append(" ✓", style="green")
    elif day.won:
        text.append(" ✓ late", style="cyan")
    elif day.in_play:
        text.append(" …", style="yellow")
    elif day.played:
        text.append(" ✗", style="red")
    elif day.playable:
        text.append(" ·", style="dim")
    if day.time is not None:
        text.append(f"\n{format_duration(day.time)}")
    if day.rank is not None:
        text.append(f" #{day.rank}")
    return text


def calendar_table(view: Calendar) -> Table:
    year, month = (int(part) for part in view.month.split("-"))
    table = Table(title=f"Daily challenges, {month_layout.month_name[month]} {year}")
    for name in WEEKDAYS:
        table.add_column(name, justify="center")
    by_day = {day.date.day: day for day in view.days}
    for week in month_layout.monthcalendar(year, month):
        table.add_row(*(day_cell(by_day[n]) if n in by_day else Text("") for n in week))
    return table


def calendar_summary(view: Calendar) -> str:
    won = sum(day.won for day in view.days)
    late = sum(day.late for day in view.days)
    badge = (
        f" Badge earned {view.badge.earned_at:%Y-%m-%d}."
        if view.badge is not None and view.badge.earned_at is not None
        else ""
    )
    return (
        f"{won} of {len(view.days)} days won ({late} late). Streak: "
        f"{view.streaks.current} days (best {view.streaks.best}).{badge}"
    )


def achievements_table(answer: Achievements) -> Table:
    table = Table(title="Achievements")
    table.add_column("")
    table.add_column("achievement")
    table.add_column("earned", justify="right")
    for item in answer.achievements:
        when = f"{item.earned_at:%Y-%m-%d}" if item.earned_at is not None else "-"
        mark = Text("★", style="yellow") if item.earned else Text("☆", style="dim")
        table.add_row(mark, f"{item.title}: {item.description}", when)
    return table


def badges_line(answer: Achievements) -> str:
    if not answer.badges:
        return "No monthly badge yet: win every day of a month (late days count)."
    return "Monthly badges: " + ", ".join(badge.month for badge in answer.badges)
