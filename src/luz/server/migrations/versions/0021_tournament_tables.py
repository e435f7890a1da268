"""A tournament's tables know their tournament (``tables.tournament``): a round is one game, so such a table offers
no rematch and its page links back to the tournament. Existing round tables are filled in from
``tournament_tables``.

Revision ID: 0021
Revises: 0020
"""

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tables", sa.Column("tournament", sa.String(32), nullable=True))
    op.execute(
        "UPDATE tables SET tournament = (SELECT tournament_id FROM tournament_tables"
        " WHERE tournament_tables.table_id = tables.id)"
        " WHERE id IN (SELECT table_id FROM tournament_tables)"
    )


def downgrade() -> None:
    op.drop_column("tables", "tournament")
