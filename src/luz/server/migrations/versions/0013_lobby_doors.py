"""A lobby for real players and "show all hands" by consent: each table's creator (a keyed hash of its client:
its waiting public tables are capped and the lobby interleaves creators), when a table nobody joined expires, and
each seat's agreement that anyone watching sees its cards.

Existing tables are kept: no creator (one lobby group of their own), never expiring, no seat agreed.

Revision ID: 0013
Revises: 0012
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tables", sa.Column("creator", sa.String(64)))
    op.add_column("tables", sa.Column("expires_at", sa.BigInteger))
    op.create_index("ix_tables_creator", "tables", ["creator"])
    op.create_index("ix_tables_expires_at", "tables", ["expires_at"])
    op.add_column("seats", sa.Column("shows_hand", sa.Boolean, nullable=False, server_default=sa.false()))


def downgrade() -> None:
    op.drop_column("seats", "shows_hand")
    op.drop_index("ix_tables_expires_at", "tables")
    op.drop_index("ix_tables_creator", "tables")
    op.drop_column("tables", "expires_at")
    op.drop_column("tables", "creator")
