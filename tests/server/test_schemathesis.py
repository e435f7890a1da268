"""The HTTP API against its own OpenAPI schema (schemathesis): no input, valid or not, makes a server error.

Each operation is fuzzed with data that fits the schema and with data that does not; the operations of a table
are fuzzed both with random table ids (404s) and with a real table's id. On SQLite and PostgreSQL.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.python import asgi

from luz.server import Settings, create_app
from support.server import create_table

EXAMPLES = {GenerationMode.POSITIVE: 20, GenerationMode.NEGATIVE: 12}


@pytest.mark.parametrize("mode", list(EXAMPLES), ids=str)
def test_no_input_is_a_server_error(database_url: str, mode: GenerationMode) -> None:
    app = create_app(Settings(database_url=database_url, bot_workers=0))
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    try:
        with asgi.get_client(app) as client:
            table_id, tokens, _ = create_table(client, players=3, seats=[{"kind": "human"}, {"kind": "bot"}, {}])
        calls = 0
        for result in schema.get_all_operations():
            operation = result.ok()
            strategies = [operation.as_strategy(mode)]
            if "{table_id}" in operation.path:
                strategies.append(
                    operation.as_strategy(
                        mode,
                        path_parameters={"table_id": table_id},
                        headers={"Authorization": f"Bearer {tokens[2]}"},
                    )
                )
            for strategy in strategies:

                @settings(
                    max_examples=EXAMPLES[mode],
                    deadline=None,
                    database=None,
                    derandomize=True,
                    phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=list(HealthCheck),
                )
                @given(strategy)
                def no_server_error(case: Any) -> None:
                    nonlocal calls
                    calls += 1
                    response = case.call_and_validate(checks=[not_a_server_error])
                    assert "Traceback" not in response.text

                try:
                    no_server_error()
                except Unsatisfiable:
                    # An operation without inputs (/healthz), or whose inputs are all given, has none that does not fit.
                    assert mode is GenerationMode.NEGATIVE, operation.path
        assert calls >= 4 * EXAMPLES[mode]
    finally:
        asgi.shutdown_lifespans()


def test_the_schema_covers_the_api(tmp_path: Path) -> None:
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path}/luz.sqlite3", bot_workers=0))
    try:
        loaded = schemathesis.openapi.from_asgi("/openapi.json", app)
        assert set(loaded.raw_schema["paths"]) == {
            "/healthz",
            "/api/editions",
            "/api/tables",
            "/api/tables/{table_id}",
            "/api/tables/{table_id}/seats/{seat}/join",
            "/api/tables/{table_id}/leave",
            "/api/tables/{table_id}/show-hand",
            "/api/tables/{table_id}/record",
            "/api/tables/{table_id}/notes",
            "/api/tables/{table_id}/chat",
            "/api/tables/{table_id}/games/{game}/review",
            "/api/tables/{table_id}/games/{game}/accuracy",
            "/api/tables/{table_id}/games/{game}/puzzles",
            "/api/tables/{table_id}/games/{game}/puzzles/{step}/answer",
            "/api/me/puzzles",
            "/api/tutorial",
            "/api/tutorial/lesson",
            "/api/bots",
            "/api/score",
            "/api/replay",
            "/api/me",
            "/api/me/guest",
            "/api/me/name",
            "/api/account/register",
            "/api/account/login",
            "/api/account/logout",
            "/api/account/logout-all",
            "/api/account/password",
            "/api/players/{player_id}",
            "/api/export",
            "/api/leaderboard",
            "/api/tables/{table_id}/ratings",
            "/api/push/key",
            "/api/me/push",
            "/api/me/notifications",
            "/api/email/verify",
            "/api/email/unsubscribe",
            "/api/me/games",
            "/api/players/{player_id}/follow",
            "/api/players/{player_id}/block",
            "/api/players/{player_id}/relation",
            "/api/me/friends",
            "/api/me/invitations",
            "/api/me/invitations/{table_id}/{seat}",
            "/api/tables/{table_id}/seats/{seat}/invite",
            "/api/tables/{table_id}/deal",
            "/api/deal-sets",
            "/api/deal-sets/{set_id}",
            "/api/deal-sets/{set_id}/close",
            "/api/me/play",
            "/api/me/vacation",
            "/api/daily",
            "/api/daily/history",
            "/api/daily/{edition}",
            "/api/daily/{edition}/archive/{day}",
            "/api/daily/{edition}/results",
            "/api/daily/{edition}/reveal",
            "/api/tournaments",
            "/api/tournaments/{tournament_id}",
            "/api/tournaments/{tournament_id}/join",
            "/api/tournaments/{tournament_id}/leave",
        }
    finally:
        asgi.shutdown_lifespans()
