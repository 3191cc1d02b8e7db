"""Server-side SVG charts for the operator UI: geometry computed here, drawn by templates/charts/*.html.

Nothing is fetched from the internet and no script runs: each chart is an <svg> with a <title> per mark, so
it reads without JavaScript and with a screen reader. Coordinates are in a fixed viewBox that scales to the
card's width.
"""

from __future__ import annotations

from dataclasses import dataclass, field

WIDTH, HEIGHT = 560, 220
LEFT, BOTTOM, TOP = 44, 36, 14


@dataclass(frozen=True)
class Mark:
    x: float
    y: float
    width: float
    height: float
    colour: str
    title: str


@dataclass(frozen=True)
class Label:
    x: float
    text: str


@dataclass(frozen=True)
class Chart:
    """What a template draws: marks (rectangles), labels under the x axis, the y axis's top value, a legend."""

    marks: list[Mark]
    labels: list[Label]
    top: int
    legend: list[tuple[str, str]] = field(default_factory=list)
    width: int = WIDTH
    height: int = HEIGHT
    empty: bool = False

    @property
    def base_y(self) -> int:
        return self.height - BOTTOM

    @property
    def left(self) -> int:
        return LEFT

    @property
    def top_label_y(self) -> int:
        return TOP + 6


def _scale(top: int) -> float:
    return (HEIGHT - BOTTOM - TOP) / top if top else 0.0


def _per(value: int, unit: str) -> str:
    """The unit for `value`: "1 row", "2 rows"."""
    return unit[:-1] if value == 1 and unit.endswith("s") else unit


def bar_chart(items: list[tuple[str, int, str]], *, unit: str = "rows") -> Chart:
    """One bar per (label, value, colour)."""
    top = max((value for _, value, _ in items), default=0)
    scale = _scale(top)
    slot = (WIDTH - LEFT) / max(len(items), 1)
    marks, labels = [], []
    for i, (label, value, colour) in enumerate(items):
        x = LEFT + i * slot + slot * 0.15
        height = value * scale
        marks.append(
            Mark(
                x,
                HEIGHT - BOTTOM - height,
                slot * 0.7,
                height,
                colour,
                f"{label}: {value} {_per(value, unit)}",
            )
        )
        labels.append(Label(x + slot * 0.35, label))
    return Chart(marks=marks, labels=labels, top=top, empty=top == 0)


def stacked_columns(
    columns: list[tuple[str, dict[str, int]]], series: list[tuple[str, str, str]], *, unit: str = ""
) -> Chart:
    """One column per (label, {series name: value}), stacked in the order of `series` (name, title, colour)."""
    top = max((sum(values.get(name, 0) for name, _, _ in series) for _, values in columns), default=0)
    scale = _scale(top)
    slot = (WIDTH - LEFT) / max(len(columns), 1)
    marks, labels = [], []
    every = -(-len(columns) // 5)  # at most five labels under the axis, so they never overlap
    for i, (label, values) in enumerate(columns):
        x = LEFT + i * slot + slot * 0.12
        y = HEIGHT - BOTTOM
        for name, title, colour in series:
            value = values.get(name, 0)
            if not value:
                continue
            height = value * scale
            y -= height
            marks.append(Mark(x, y, slot * 0.76, height, colour, f"{label}: {value} {title.lower()}{unit}"))
        if i % every == 0:
            labels.append(Label(x + slot * 0.38, label))
    legend = [(title, colour) for _, title, colour in series]
    return Chart(marks=marks, labels=labels, top=top, legend=legend, empty=top == 0)
