"""The adapters' doctests run where their framework is installed (the ``research`` and ``jax`` extras), as CI does."""

import importlib.util

_FRAMEWORK = {
    "openspiel.py": "pyspiel",
    "pettingzoo.py": "pettingzoo",
    "luz_v0.py": "pettingzoo",
    "gym.py": "gymnasium",
    "jax_env.py": "jax",
}

collect_ignore = [module for module, framework in _FRAMEWORK.items() if importlib.util.find_spec(framework) is None]
