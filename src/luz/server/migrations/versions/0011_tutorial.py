"""The tutorial's tables marked as such: one unfinished tutorial per identity, counted among its client's tables
of bots.

Revision ID: 0011
Revises: 0010
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tables", sa.Column("tutorial", sa.Boolean, nullable=False, server_default=sa.false()))


def downgrade() -> None:
    op.drop_column("tables", "tutorial")
