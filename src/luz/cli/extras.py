"""The optional extras of the ``luz-game`` distribution, and the one-line error of a command run without its extra.

The base install (engine, records, beliefs, bots, ``luz play``/``score``/``replay``/``view``/``review``) needs none
of them; a command that does checks first, with :func:`require`, so that a missing extra reads as what to install
rather than as a traceback.
"""

from __future__ import annotations

import importlib.util

import typer

DISTRIBUTION = "luz-game"

# The modules each extra's distributions install (checked against pyproject.toml by tests/packaging).
EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "server": (
        "fastapi",
        "uvicorn",
        "sqlalchemy",
        "alembic",
        "pydantic",
        "psycopg",
        "redis",
        "limits",
        "orjson",
        "pwdlib",
        "itsdangerous",
        "pywebpush",
        "aiohttp",
        "cryptography",
        "py_vapid",
        "aiosmtplib",
        "email_validator",
        "confusable_homoglyphs",
        "openskill",
        "prometheus_client",
        "pythonjsonlogger",
        "httpx",
        "websockets",
    ),
    "arena": ("matplotlib", "openskill", "scipy"),
    "ray": ("ray",),
    "research": ("pyspiel", "pettingzoo", "gymnasium", "threadpoolctl", "sb3_contrib", "torch"),
    "jax": ("jax",),
}


def install_hint(extra: str) -> str:
    """The pip command that installs ``extra``: ``pip install 'luz-game[server]'``."""
    return f"pip install '{DISTRIBUTION}[{extra}]'"


def missing_modules(extra: str) -> list[str]:
    """The modules of ``extra`` that cannot be imported here (found without importing them)."""
    return [module for module in EXTRA_MODULES[extra] if importlib.util.find_spec(module) is None]


def require(extra: str, command: str) -> None:
    """Unless ``extra`` is installed, say which to install in one line on stderr and exit with status 2.

    ``command`` is what the user ran, as the message names it: ``luz serve``, ``luz bench server``."""
    if missing_modules(extra):
        typer.echo(f"{command} needs the {extra} extra: {install_hint(extra)}", err=True)
        raise typer.Exit(2)
