"""Plain-text captures of the screen (for the README and for tests' assertions)."""

from __future__ import annotations

import io

from rich.console import Console
from textual.app import App


def screen_text(app: App[object]) -> str:
    """What the terminal shows now, as plain text (like ``export_screenshot``, no SVG)."""
    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        force_terminal=True,
        color_system=None,
        record=True,
        legacy_windows=False,
        safe_box=False,
    )
    console.print(
        app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    )
    text = console.export_text(styles=False)
    return "\n".join(line.rstrip() for line in text.splitlines())
