"""Names that cannot pass for another, and verification emails counted for every process.

``players.name_skeleton`` (unique) replaces ``account_name``: an account's name as it looks (NFKC, case-folded,
invisible characters removed, confusables mapped: ``luz.server.names``), backfilled for every account, oldest
first; a later account whose name looks like an earlier one's gets a number after it, as 0009 did. A table of
the verification emails sent is added.

Revision ID: 0015
Revises: 0012
"""

import sqlalchemy as sa
from alembic import op

from luz.server.names import skeleton

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

NAME_LENGTH = 40


def upgrade() -> None:
    op.add_column("players", sa.Column("name_skeleton", sa.String(255)))
    players = sa.table(
        "players",
        sa.column("id", sa.String),
        sa.column("name", sa.String),
        sa.column("username", sa.String),
        sa.column("name_skeleton", sa.String),
        sa.column("created_at", sa.DateTime),
    )
    connection = op.get_bind()
    accounts = connection.execute(
        sa.select(players.c.id, players.c.name)
        .where(players.c.username.is_not(None))
        .order_by(players.c.created_at, players.c.id)
    ).all()
    taken: set[str] = set()
    for player_id, name in accounts:
        unique, n = name, 1
        while skeleton(unique) in taken:
            n += 1
            unique = f"{name[: NAME_LENGTH - len(str(n)) - 1]} {n}"
        taken.add(skeleton(unique))
        connection.execute(
            players.update().where(players.c.id == player_id).values(name=unique, name_skeleton=skeleton(unique))
        )
    op.drop_index("ix_players_account_name", "players")
    op.drop_column("players", "account_name")  # a plain DROP COLUMN (SQLite 3.35+): no copy of the table
    op.create_index("ix_players_name_skeleton", "players", ["name_skeleton"], unique=True)
    op.create_table(
        "verification_mails",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("address", sa.String(254), nullable=False),
        sa.Column("day", sa.String(10), nullable=False),
        sa.Column("slot", sa.Integer, nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("address", "day", name="one_verification_per_address_a_day"),
        sa.UniqueConstraint("player_id", "day", "slot", name="verification_slots_per_account"),
    )


def downgrade() -> None:
    op.drop_table("verification_mails")
    op.drop_index("ix_players_name_skeleton", "players")
    op.add_column("players", sa.Column("account_name", sa.String(40)))
    players = sa.table(
        "players", sa.column("id", sa.String), sa.column("name", sa.String), sa.column("username", sa.String)
    )
    connection = op.get_bind()
    accounts = connection.execute(sa.select(players.c.id, players.c.name).where(players.c.username.is_not(None)))
    for player_id, name in accounts.all():
        connection.execute(
            sa.text("UPDATE players SET account_name = :name WHERE id = :id"), {"name": name.lower(), "id": player_id}
        )
    op.drop_column("players", "name_skeleton")
    op.create_index("ix_players_account_name", "players", ["account_name"], unique=True)
