"""Shared deals: a table may play its first game on a finished game's deal (its seed) or on a named deal set's, and
the games on one deal are found by their seed. Forced moves: a player's setting that plays their only legal card
for them at turn-based tables (on by default).

Existing tables and games are kept (a new table's deal is ``NULL``: a random one, as before).

Revision ID: 0018
Revises: 0012
"""

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tables", sa.Column("deal_seed", sa.BigInteger, nullable=True))
    op.add_column("tables", sa.Column("deal_table", sa.String(32), nullable=True))
    op.add_column("tables", sa.Column("deal_game", sa.Integer, nullable=True))
    op.add_column("tables", sa.Column("deal_set", sa.String(32), nullable=True))
    op.create_index("ix_tables_deal_set", "tables", ["deal_set"])
    op.create_index("ix_games_seed", "games", ["seed"])
    op.add_column("players", sa.Column("forced_moves", sa.Boolean, nullable=False, server_default=sa.true()))
    op.create_table(
        "deal_sets",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("edition", sa.String(40), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("owner", sa.String(32), nullable=True),
        sa.Column("closed", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("deal_sets")
    op.drop_column("players", "forced_moves")
    op.drop_index("ix_games_seed", table_name="games")
    op.drop_index("ix_tables_deal_set", table_name="tables")
    op.drop_column("tables", "deal_set")
    op.drop_column("tables", "deal_game")
    op.drop_column("tables", "deal_table")
    op.drop_column("tables", "deal_seed")
