"""Telling players it is their turn when they are not looking: Web Push (push.py), an hourly email digest
(mail.py), the players' settings (preferences.py) and the background loop that finds the turns (notifier.py).

Nothing told carries anything hidden: a table's name and id, whose turn it is (the reader's), its deadline; never
a card, a hand or a bid (texts.py builds every word of it).
"""

from .mail import Mailer, Tokens
from .notifier import Notifier, SeatConnected
from .preferences import Preferences
from .push import Pusher, Subscriptions, vapid_key

__all__ = ["Mailer", "Notifier", "Preferences", "Pusher", "SeatConnected", "Subscriptions", "Tokens", "vapid_key"]
