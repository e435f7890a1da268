"""Duplicate Swiss tournaments: the tournaments, their players, rounds (each with its secret seed) and tables.

Existing tables and records are kept (tables of their own are added).

Revision ID: 0019
Revises: 0012
"""

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("edition", sa.String(40), nullable=False),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("rounds", sa.Integer, nullable=False),
        sa.Column("time_control", sa.JSON, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("starts_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("capacity", sa.Integer, nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("round_no", sa.Integer, nullable=False),
        sa.Column("created_by", sa.String(32), sa.ForeignKey("players.id", ondelete="SET NULL"), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_tournaments_status", "tournaments", ["status"])
    op.create_table(
        "tournament_players",
        sa.Column(
            "tournament_id", sa.String(32), sa.ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("client", sa.String(64), nullable=True),
        sa.Column("lot", sa.BigInteger, nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("tournament_id", "client", name="one_place_per_client"),
    )
    op.create_index("ix_tournament_players_player_id", "tournament_players", ["player_id"])
    op.create_table(
        "tournament_rounds",
        sa.Column(
            "tournament_id", sa.String(32), sa.ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("round_no", sa.Integer, primary_key=True),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("over", sa.Boolean, nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "tournament_tables",
        sa.Column(
            "tournament_id", sa.String(32), sa.ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("round_no", sa.Integer, primary_key=True),
        sa.Column("table_no", sa.Integer, primary_key=True),
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), nullable=False),
        sa.UniqueConstraint("table_id"),
    )


def downgrade() -> None:
    op.drop_table("tournament_tables")
    op.drop_table("tournament_rounds")
    op.drop_table("tournament_players")
    op.drop_index("ix_tournaments_status", "tournaments")
    op.drop_table("tournaments")
