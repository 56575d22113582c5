"""Server-side chart geometry for the dashboard: the template draws it as inline SVG.

No JavaScript, no chart library, no CDN: the page is plain HTML whose charts are ``<rect>`` and
``<polyline>`` elements placed here. Coordinates are formatted as strings so that the template
never localises a number into something SVG cannot read.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


def _fmt(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def nice_ceiling(value: float, *, steps: int = 4) -> tuple[float, float]:
    """An axis top at or above ``value`` and its step, both round (1, 2 or 5 times 10^k)."""
    if value <= 0:
        return float(steps), 1.0
    raw = value / steps
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    step = max(step, 1.0)  # counts: no fractional ticks
    return step * math.ceil(value / step), step


@dataclass(frozen=True, slots=True)
class Series:
    name: str
    css: str  # class name that colours it
    values: Sequence[float]


@dataclass(frozen=True, slots=True)
class RateSeries:
    name: str
    css: str
    values: Sequence[float | None]  # between 0 and 1; None where there is nothing to rate


@dataclass(frozen=True, slots=True)
class Bar:
    x: str
    y: str
    width: str
    height: str
    css: str
    title: str


@dataclass(frozen=True, slots=True)
class Line:
    points: str
    css: str
    name: str
    dots: list[Bar]  # a circle per point (x, y; title), so a lone point shows too


@dataclass(frozen=True, slots=True)
class Tick:
    x: str
    y: str
    label: str


@dataclass(frozen=True, slots=True)
class Legend:
    name: str
    css: str


@dataclass(frozen=True, slots=True)
class Chart:
    title: str
    width: int
    height: int
    left: str
    right: str
    top: str
    bottom: str
    bars: list[Bar]
    lines: list[Line]
    y_ticks: list[Tick]
    right_ticks: list[Tick]
    x_labels: list[Tick]
    legend: list[Legend]


def bar_chart(
    *,
    title: str,
    labels: Sequence[str],
    series: Sequence[Series],
    rate: RateSeries | None = None,
    width: int = 760,
    height: int = 220,
    label_every: int = 5,
) -> Chart:
    """Grouped vertical bars, one group per label, with an optional rate line (values 0 to 1,
    or None for no point) drawn against a 0-100 % axis on the right."""
    left, right, top, bottom = 40.0, width - (44.0 if rate else 10.0), 10.0, height - 24.0
    plot_height = bottom - top
    peak = max((value for s in series for value in s.values), default=0)
    axis_top, step = nice_ceiling(peak)
    groups = max(len(labels), 1)
    group_width = (right - left) / groups
    bar_width = group_width * 0.8 / max(len(series), 1)

    def y_of(value: float) -> float:
        return bottom - plot_height * value / axis_top

    bars = []
    for index, label in enumerate(labels):
        for number, one in enumerate(series):
            value = one.values[index]
            y = y_of(value)
            bars.append(
                Bar(
                    x=_fmt(left + group_width * (index + 0.1) + bar_width * number),
                    y=_fmt(y),
                    width=_fmt(bar_width),
                    height=_fmt(bottom - y),
                    css=one.css,
                    title=f"{label}: {one.name} {_fmt(value)}",
                )
            )
    ticks = []
    value = 0.0
    while value <= axis_top + 1e-9:
        ticks.append(Tick(x=_fmt(left - 4), y=_fmt(y_of(value)), label=_fmt(value)))
        value += step
    x_labels = [
        Tick(x=_fmt(left + group_width * (index + 0.5)), y=_fmt(bottom + 16), label=label)
        for index, label in enumerate(labels)
        if index % label_every == 0 or index == len(labels) - 1
    ]
    lines: list[Line] = []
    right_ticks: list[Tick] = []
    legend = [Legend(name=one.name, css=one.css) for one in series]
    if rate is not None:
        dots = [
            Bar(
                x=_fmt(left + group_width * (index + 0.5)),
                y=_fmt(bottom - plot_height * fraction),
                width="0",
                height="0",
                css=rate.css,
                title=f"{labels[index]}: {rate.name} {100 * fraction:.1f} %",
            )
            for index, fraction in enumerate(rate.values)
            if fraction is not None
        ]
        points = " ".join(f"{dot.x},{dot.y}" for dot in dots)
        lines.append(Line(points=points, css=rate.css, name=rate.name, dots=dots))
        right_ticks = [
            Tick(x=_fmt(right + 4), y=_fmt(bottom - plot_height * p / 100), label=f"{p}%")
            for p in (0, 25, 50, 75, 100)
        ]
        legend.append(Legend(name=rate.name, css=rate.css))
    return Chart(
        title=title,
        width=width,
        height=height,
        left=_fmt(left),
        right=_fmt(right),
        top=_fmt(top),
        bottom=_fmt(bottom),
        bars=bars,
        lines=lines,
        y_ticks=ticks,
        right_ticks=right_ticks,
        x_labels=x_labels,
        legend=legend,
    )


@dataclass(frozen=True, slots=True)
class PercentBar:
    label: str
    width: str  # percent of the track, "0" to "100"
    text: str


def percent_bars(*, rows: Sequence[tuple[str, float | None]]) -> list[PercentBar]:
    """Horizontal bars of rates between 0 and 1 (None: nothing to rate yet)."""
    return [
        PercentBar(
            label=label,
            width=_fmt(100 * (fraction or 0.0)),
            text="—" if fraction is None else f"{100 * fraction:.1f} %",
        )
        for label, fraction in rows
    ]
