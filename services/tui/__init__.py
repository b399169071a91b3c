"""``teoti play`` / ``watch`` / ``replay --step``: a full-screen terminal client (Textual)
for any registered ruleset.

Modules: :mod:`.kit` (what the table knows of a game: the generic kit and each game's own,
named by the game's declaration, ``GameDeclaration.tui_kit``), :mod:`.words` (seat names,
refusals), :mod:`.backend` (the server, through ``TeotiClient``), :mod:`.timeline` (local
fold for replays), :mod:`.widgets` (the generic parts: choices, log, JSON view, pop-ups),
:mod:`.app` (the screen), :mod:`.launch` (entry points used by ``teoti``). Each game's own
panels and words live in its folder (``services/games/<name>/tui``); nothing here imports
a game.
"""
