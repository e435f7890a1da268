"""The live tables of a server process (the domain; ``api`` calls it, it calls the store and the engine).

- ``model``: the vocabulary (``Refused``, ``Connection``, ``Outbox``, ``Change``, ``QUICK_BOT``)
- ``table``: one table (``Table``: lock, game, version, connections) and its single ``Writer``
- ``registry``: this process's tables (``Registry``: load, resume, dispatch to the collaborators below)
- ``fanout``: each connection's message after a change, and the sending
- ``presence``: connections, grace periods, bots taking over a seat whose player left
- ``botmoves`` and ``botpool``: bot moves, their release times and caps, the bot processes
- ``clocks``: deadlines of timed tables and the timeout's move
- ``broker``: events between server processes (memory or Redis)
- ``notes`` and ``chat``: a seat's notes on its own cards; the players' and spectators' chat
"""

from .model import QUICK_BOT, Change, Connection, Outbox, Refused
from .registry import Registry
from .table import Table

__all__ = ["QUICK_BOT", "Change", "Connection", "Outbox", "Refused", "Registry", "Table"]
