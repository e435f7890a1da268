"""Players: guests and accounts, their sessions, one seat per player at a table, and each finished game's results.

Existing tables, seats, games and actions are kept: seats taken before this migration have no player (their
tokens still open them).

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("username", sa.String(40), unique=True),
        sa.Column("password_hash", sa.String(200)),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column(
            "player_id", sa.String(32), sa.ForeignKey("players.id", ondelete="CASCADE"), nullable=False, index=True
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "server_keys",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.String(200), nullable=False),
    )
    op.create_table(
        "results",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("game_no", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id", ondelete="SET NULL"), index=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("rank", sa.Integer, nullable=False),
        sa.Column("points", sa.Integer, nullable=False),
        sa.Column("deals", sa.Integer, nullable=False),
        sa.Column("exact_bids", sa.Integer, nullable=False),
        sa.Column("safeties", sa.Integer, nullable=False),
        sa.Column("against_bots", sa.Boolean, nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False, index=True),
    )
    with op.batch_alter_table("seats") as seats:
        seats.add_column(sa.Column("player_id", sa.String(32), nullable=True))
        seats.create_foreign_key("seats_player_id_fkey", "players", ["player_id"], ["id"], ondelete="SET NULL")
        seats.create_unique_constraint("one_seat_per_player", ["table_id", "player_id"])


def downgrade() -> None:
    with op.batch_alter_table("seats") as seats:
        seats.drop_constraint("one_seat_per_player", type_="unique")
        seats.drop_constraint("seats_player_id_fkey", type_="foreignkey")
        seats.drop_column("player_id")
    op.drop_table("results")
    op.drop_table("server_keys")
    op.drop_table("sessions")
    op.drop_table("players")
