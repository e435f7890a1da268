"""The shipped learned value (package data): its weights by training step, and the step the bots play with.

A search that stops its playouts a few tricks on (``strong:depth=2``, ``expert``) scores the rest of the deal with
these weights (:func:`luz.bots.fast.value.settle`). They are trained by ``luz train-value`` (:mod:`luz.bots.value`,
the training side, which the bots never import).
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

import numpy as np

from .base import InvalidBotSpec
from .fast.value import VALUE_FEATURES

VALUE_FILE = "learned_value.npz"
"""The shipped value (``luz.bots`` package data): ``steps[k - 1]`` is the value after training step ``k``."""
DEFAULT_STEP = 6
"""The training step the bots use: the last of the heuristic's self-play, with which docs/BOTS.md measured them."""


@cache
def shipped_steps() -> np.ndarray:
    """The shipped value's weights by training step, ``float64[steps, VALUE_FEATURES]``."""
    with files("luz.bots").joinpath(VALUE_FILE).open("rb") as handle:
        steps = np.asarray(np.load(handle)["steps"], dtype=np.float64)
    if steps.ndim != 2 or steps.shape[1] != VALUE_FEATURES:
        raise ValueError(f"{VALUE_FILE} holds weights of shape {steps.shape}, not (steps, {VALUE_FEATURES})")
    return steps


def shipped_value(step: int | None = None) -> np.ndarray:
    """The shipped value after training step ``step`` (``None``: :data:`DEFAULT_STEP`), ``float64[VALUE_FEATURES]``."""
    steps = shipped_steps()
    step = DEFAULT_STEP if step is None else step
    if isinstance(step, bool) or not isinstance(step, int) or not 1 <= step <= len(steps):
        raise InvalidBotSpec(f"value must be a training step in 1..{len(steps)}, not {step!r}")
    return np.ascontiguousarray(steps[step - 1])
