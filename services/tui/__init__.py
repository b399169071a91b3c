"""``teoti play`` / ``watch`` / ``replay --step``: a full-screen terminal client (Textual)
for any registered ruleset.

Modules: :mod:`.kit` (what the table knows of a game: the generic kit and each game's own,
found by ruleset name), :mod:`.words` (seat names, refusals), :mod:`.backend` (the server,
through ``TeotiClient``), :mod:`.timeline` (local fold for replays), :mod:`.widgets` (the
generic parts: choices, log, JSON view, pop-ups), :mod:`.app` (the screen), :mod:`.launch`
(entry points used by ``teoti``). :mod:`.games` holds each game's own panels and words
(``games.teotihuacan``, ``games.archaeology``); nothing outside it imports a game.
"""
