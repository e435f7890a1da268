"""Vacations: each player's current vacation (until when) and the days taken in a calendar year. A turn-based
table's time bank and paused clocks live in its stored ``time_control`` and ``clock`` (JSON: nothing to migrate).

Existing players are kept, on no vacation with their whole allowance.

Revision ID: 0020
Revises: 0019
"""

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("players", sa.Column("vacation_until", sa.BigInteger, nullable=True))
    op.create_index("ix_players_vacation_until", "players", ["vacation_until"])
    op.add_column("players", sa.Column("vacation_year", sa.Integer, nullable=True))
    op.add_column("players", sa.Column("vacation_days", sa.Integer, nullable=False, server_default="0"))


def downgrade() -> None:
    op.drop_column("players", "vacation_days")
    op.drop_column("players", "vacation_year")
    op.drop_index("ix_players_vacation_until", "players")
    op.drop_column("players", "vacation_until")
