"""Turn-based play and notifications: a table's seat to move and its next deadline in indexed columns (found
without loading the table), the players' notification settings, the browsers' push subscriptions.

Existing tables and players are kept (columns with defaults, a table of its own).

Revision ID: 0008
Revises: 0007
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMNs: a batch would copy the tables on SQLite, and dropping the old one would cascade.
    op.add_column("tables", sa.Column("turn_based", sa.Boolean, nullable=False, server_default=sa.false()))
    op.add_column("tables", sa.Column("to_move", sa.Integer))
    op.add_column("tables", sa.Column("deadline", sa.BigInteger))
    op.add_column("tables", sa.Column("notify_at", sa.BigInteger))
    op.add_column("tables", sa.Column("remind_at", sa.BigInteger))
    for column in ("deadline", "notify_at", "remind_at"):
        op.create_index(f"ix_tables_{column}", "tables", [column])
    op.create_index("ix_seats_player_id", "seats", ["player_id"])
    op.add_column("players", sa.Column("push_on", sa.Boolean, nullable=False, server_default=sa.true()))
    op.add_column("players", sa.Column("email", sa.String(254)))
    op.add_column("players", sa.Column("email_verified", sa.Boolean, nullable=False, server_default=sa.false()))
    op.add_column("players", sa.Column("email_on", sa.Boolean, nullable=False, server_default=sa.false()))
    op.add_column("players", sa.Column("quiet_start", sa.Integer))
    op.add_column("players", sa.Column("quiet_end", sa.Integer))
    op.add_column("players", sa.Column("timezone", sa.String(64), nullable=False, server_default="UTC"))
    op.add_column("players", sa.Column("language", sa.String(8), nullable=False, server_default="en"))
    op.add_column("players", sa.Column("email_pending", sa.Boolean, nullable=False, server_default=sa.false()))
    op.add_column("players", sa.Column("emailed_at", sa.BigInteger))
    op.create_table(
        "push_subscriptions",
        sa.Column("endpoint", sa.String(1000), primary_key=True),
        sa.Column(
            "player_id", sa.String(32), sa.ForeignKey("players.id", ondelete="CASCADE"), nullable=False, index=True
        ),
        sa.Column("p256dh", sa.String(200), nullable=False),
        sa.Column("auth", sa.String(100), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("push_subscriptions")
    with op.batch_alter_table("players") as batch:
        for column in (
            "emailed_at",
            "email_pending",
            "language",
            "timezone",
            "quiet_end",
            "quiet_start",
            "email_on",
            "email_verified",
            "email",
            "push_on",
        ):
            batch.drop_column(column)
    op.drop_index("ix_seats_player_id", "seats")
    for column in ("remind_at", "notify_at", "deadline"):
        op.drop_index(f"ix_tables_{column}", "tables")
    with op.batch_alter_table("tables") as batch:
        for column in ("remind_at", "notify_at", "deadline", "to_move", "turn_based"):
            batch.drop_column(column)
