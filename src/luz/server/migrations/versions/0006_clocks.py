"""Clocks: a table's time control and its current game's clock (both empty for the tables already stored, which
stay untimed).

Revision ID: 0006
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as tables:
        tables.add_column(sa.Column("time_control", sa.JSON, nullable=True))
        tables.add_column(sa.Column("clock", sa.JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tables") as tables:
        tables.drop_column("clock")
        tables.drop_column("time_control")
