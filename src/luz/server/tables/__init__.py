"""The live tables of a server process (``api`` calls it, it calls the store and the engine).

- ``commands``: every change of a table as a value (``Command``), what one did (``Outcome``), the ``Door``
- ``writer``: ``Writer.process``, the only code that takes a table's lock
- ``registry``: the door (``submit``), ``publish`` (every side effect), loading and resuming tables
- ``model``: the vocabulary (``Refused``, ``Connection``, ``Outbox``, ``Change``, ``QUICK_BOT``)
- ``table``: one table (``Table``: lock, game, version, connections)
- ``fanout``: each connection's message after a change, and the sending
- ``presence``: grace periods, bots taking over a seat whose player left (connections are the writer's)
- ``botmoves`` and ``botpool``: bot moves, their release times and caps, the bot processes
- ``clocks``: deadlines of timed tables and the timeout's move
- ``broker``: events between server processes (memory or Redis)
- ``notes`` and ``chat``: a seat's notes on its own cards; the players' and spectators' chat
"""

from .model import QUICK_BOT, Change, Connection, Outbox, Refused
from .registry import Registry
from .table import Table

__all__ = ["QUICK_BOT", "Change", "Connection", "Outbox", "Refused", "Registry", "Table"]
