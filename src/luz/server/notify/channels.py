"""Every notification channel, registered in one place: a new channel is a module with a class following
``channel.Channel`` and its ``build(context)``, and one line here."""

from __future__ import annotations

from collections.abc import Callable

from .channel import Channel, ChannelContext
from .digest import DigestChannel
from .push_channel import PushChannel

CHANNELS: tuple[Callable[[ChannelContext], Channel], ...] = (
    PushChannel.build,
    DigestChannel.build,
)


def build_channels(context: ChannelContext) -> list[Channel]:
    """One of each registered channel, in their order (the order a player is told in)."""
    return [build(context) for build in CHANNELS]
