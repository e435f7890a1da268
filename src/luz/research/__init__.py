"""LUZ for researchers: the game inside OpenSpiel, PettingZoo and Gymnasium (``pip install 'luz-game[research]'``).

The frameworks are optional: ``luz.research.encoding`` (action ids, tensors, text) needs only numpy; import
``luz.research.openspiel``, ``luz.research.pettingzoo`` (``luz.research.luz_v0``) or ``luz.research.gym`` for
the adapters. See docs/RESEARCH.md.
"""
