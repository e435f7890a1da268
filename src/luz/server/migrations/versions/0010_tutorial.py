"""The tutorial's tables marked as such: one unfinished tutorial per identity, counted among its client's tables
of bots.

Revision ID: 0010t
Revises: 0009
"""

import sqlalchemy as sa
from alembic import op

revision = "0010t"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tables", sa.Column("tutorial", sa.Boolean, nullable=False, server_default=sa.false()))


def downgrade() -> None:
    op.drop_column("tables", "tutorial")
