"""Sightings: which identities were seen from which client (a keyed hash of its address) or browser (a device
cookie), and when, so that identities seen together exchange no rating (links.py).

Existing tables and records are kept (a table of its own is added).

Revision ID: 0014
Revises: 0012
"""

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sightings",
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("key", sa.String(80), primary_key=True),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_sightings_key", "sightings", ["key"])
    op.create_index("ix_sightings_seen_at", "sightings", ["seen_at"])


def downgrade() -> None:
    op.drop_table("sightings")
