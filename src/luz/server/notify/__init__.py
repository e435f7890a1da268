"""Telling players it is their turn when they are not looking: the channels (channel.py: the seam; push_channel.py:
Web Push over push.py; digest.py: the hourly email over mail.py; registered in channels.py), the players' settings
(preferences.py) and the background loop that finds the turns and tells each channel (notifier.py).

Nothing told carries anything hidden: a table's name and id, whose turn it is (the reader's), its deadline; never
a card, a hand or a bid (texts.py builds every word of it).
"""

from .channel import Channel, ChannelContext, Notice
from .channels import build_channels
from .mail import Mailer, Tokens
from .notifier import Notifier, SeatConnected
from .preferences import Preferences
from .push import Subscriptions, vapid_key

__all__ = [
    "Channel",
    "ChannelContext",
    "Mailer",
    "Notice",
    "Notifier",
    "Preferences",
    "SeatConnected",
    "Subscriptions",
    "Tokens",
    "build_channels",
    "vapid_key",
]
