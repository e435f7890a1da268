"""Notes: what a player thinks each of their own cards is, stored for that seat only.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "notes",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("game_no", sa.Integer, primary_key=True),
        sa.Column("deal", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("slot", sa.Integer, primary_key=True),
        sa.Column("text", sa.String(16), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("notes")
