"""``teoti play`` / ``watch`` / ``replay --step``: a full-screen terminal client (Textual).

Modules: :mod:`.words` (plain game words), :mod:`.backend` (the server, through
``TeotiClient``), :mod:`.timeline` (local fold for replays), :mod:`.widgets` (one part of the
board each), :mod:`.app` (the screen), :mod:`.launch` (entry points used by ``teoti``).
"""
