"""Ratings: rated tables, each player's OpenSkill rating per edition and player count, and what each rated game
changed; a result says whether its seat was abandoned.

Existing tables are unrated and existing results not abandoned; nothing stored before is changed.

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ALTER TABLE ... ADD COLUMN on both databases: a batch copy of ``tables`` on SQLite would drop the
    # old table, and with it (ON DELETE CASCADE) every seat, game and note.
    op.add_column("tables", sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()))
    op.add_column("results", sa.Column("abandoned", sa.Boolean, nullable=False, server_default=sa.false()))
    op.create_table(
        "ratings",
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("edition", sa.String(40), primary_key=True),
        sa.Column("players", sa.Integer, primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ratings_by_pool", "ratings", ["edition", "players", "mu"])
    op.create_table(
        "rating_changes",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("game_no", sa.Integer, primary_key=True),
        sa.Column(
            "player_id", sa.String(32), sa.ForeignKey("players.id", ondelete="CASCADE"), primary_key=True, index=True
        ),
        sa.Column("edition", sa.String(40), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("place", sa.Integer, nullable=False),
        sa.Column("mu_before", sa.Float, nullable=False),
        sa.Column("sigma_before", sa.Float, nullable=False),
        sa.Column("mu_after", sa.Float, nullable=False),
        sa.Column("sigma_after", sa.Float, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("rating_changes")
    op.drop_index("ratings_by_pool", table_name="ratings")
    op.drop_table("ratings")
    op.drop_column("results", "abandoned")
    op.drop_column("tables", "rated")  # not a batch copy on SQLite: see upgrade
