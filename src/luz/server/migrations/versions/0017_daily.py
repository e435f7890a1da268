"""The daily deal: each identity's attempts (one per day and edition), the day's scores and how its players bid.

Existing tables and records are kept (three tables of their own are added).

Revision ID: 0017
Revises: 0012
"""

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "daily_attempts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("day", sa.String(10), nullable=False),
        sa.Column("edition", sa.String(32), nullable=False),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id", ondelete="CASCADE"), nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("guest", sa.Boolean, nullable=False),
        sa.Column("table_id", sa.String(32), nullable=True),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("ranked", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("score", sa.Integer, nullable=True),
        sa.Column("marks", sa.String(64), nullable=True),
        sa.Column("started_at", sa.Float, nullable=False),
        sa.UniqueConstraint("day", "edition", "player_id", name="daily_one_attempt"),
    )
    op.create_index("daily_board", "daily_attempts", ["day", "edition", "ranked", "score"])
    op.create_index("daily_unsettled", "daily_attempts", ["status", "day"])
    op.create_index("ix_daily_attempts_player_id", "daily_attempts", ["player_id"])
    op.create_index("ix_daily_attempts_table_id", "daily_attempts", ["table_id"])
    op.create_table(
        "daily_scores",
        sa.Column("day", sa.String(10), primary_key=True),
        sa.Column("edition", sa.String(32), primary_key=True),
        sa.Column("score", sa.Integer, primary_key=True),
        sa.Column("players", sa.Integer, nullable=False),
    )
    op.create_table(
        "daily_bids",
        sa.Column("day", sa.String(10), primary_key=True),
        sa.Column("edition", sa.String(32), primary_key=True),
        sa.Column("deal", sa.Integer, primary_key=True),
        sa.Column("bid", sa.Integer, primary_key=True),
        sa.Column("safety", sa.Boolean, primary_key=True),
        sa.Column("players", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("daily_bids")
    op.drop_table("daily_scores")
    op.drop_table("daily_attempts")
