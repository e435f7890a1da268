"""Policies over the Gymnasium observation for ``luz eval`` tests (``policy:support.policies:NAME``)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

SIZES: set[int] = set()
"""The observation sizes :func:`recording` was given (in this process)."""


def first_legal(observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> int:
    """The lowest legal action id."""
    return int(np.flatnonzero(mask)[0])


def recording(observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> int:
    """:func:`first_legal`, noting the observation's size."""
    SIZES.add(observation.shape[0])
    return first_legal(observation, mask)


def illegal(observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> int:
    """The lowest action id the mask forbids."""
    return int(np.flatnonzero(mask == 0)[0])


not_callable = 3
