"""Root of every test folder: ``tests/`` and each game's ``services/games/<name>/tests/``.

The shared fixtures (a real Redis, key prefixes, the registry with Nim...) live in the
plugin module ``tests/plugin.py``, not in ``tests/conftest.py``: a game's tests sit
outside ``tests/`` (a game is one folder, issue 31), and a conftest.py reaches only the
folders below it, while a plugin named here reaches every test of the session. (A
conftest module cannot also be named as a plugin: pytest would register it twice.)
"""

pytest_plugins = ["tests.plugin"]
