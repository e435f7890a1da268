"""Table chat: the players' and the spectators' messages, kept with the table for the replay.

Existing tables and records are kept (a table of its own is added).

Revision ID: 0007
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "chat",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), nullable=False, index=True
        ),
        sa.Column("game_no", sa.Integer, nullable=False),
        sa.Column("channel", sa.String(16), nullable=False),
        sa.Column("seat", sa.Integer),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id", ondelete="SET NULL")),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("text", sa.String(280), nullable=False),
        sa.Column("preset", sa.String(16)),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("chat")
