"""Shared deals: a table may play its first game on a finished game's deal (its seed), and the games on one deal
are found by their seed.

Existing tables and games are kept (a new table's deal is ``NULL``: a random one, as before).

Revision ID: 0018
Revises: 0012
"""

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tables", sa.Column("deal_seed", sa.BigInteger, nullable=True))
    op.add_column("tables", sa.Column("deal_table", sa.String(32), nullable=True))
    op.add_column("tables", sa.Column("deal_game", sa.Integer, nullable=True))
    op.create_index("ix_games_seed", "games", ["seed"])


def downgrade() -> None:
    op.drop_index("ix_games_seed", table_name="games")
    op.drop_column("tables", "deal_game")
    op.drop_column("tables", "deal_table")
    op.drop_column("tables", "deal_seed")
