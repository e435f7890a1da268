"""A fair community: account names unique in any case and their history, online presence, follows, blocks,
invitations to a seat, the client a seat was taken from, spectators seeing every hand, rematch offers, rated
games that no longer count.

Existing rows are kept (columns with defaults, tables of their own); each account's name becomes its unique
``account_name`` (a second account of the same name, in any case, gets a number after it).

Revision ID: 0009
Revises: 0008
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def _player(column: str, *, primary_key: bool = False, index: bool = False) -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(
        column,
        sa.String(32),
        sa.ForeignKey("players.id", ondelete="CASCADE"),
        primary_key=primary_key,
        nullable=False,
        index=index,
    )


def upgrade() -> None:
    # Plain ADD COLUMNs: a batch would copy the tables on SQLite, and dropping the old one would cascade.
    op.add_column("tables", sa.Column("show_hands", sa.Boolean, nullable=False, server_default=sa.false()))
    op.add_column("tables", sa.Column("rematch", sa.JSON))
    op.add_column("seats", sa.Column("client", sa.String(64)))
    op.add_column("games", sa.Column("unrated", sa.String(16)))
    op.add_column("games", sa.Column("unrated_seat", sa.Integer))  # fair ratings: who made the game unrated
    op.add_column("players", sa.Column("account_name", sa.String(40)))
    op.add_column("players", sa.Column("seen_at", sa.BigInteger))
    players = sa.table(
        "players",
        sa.column("id", sa.String),
        sa.column("name", sa.String),
        sa.column("username", sa.String),
        sa.column("account_name", sa.String),
        sa.column("created_at", sa.DateTime),
    )
    connection = op.get_bind()
    accounts = connection.execute(
        sa.select(players.c.id, players.c.name).where(players.c.username.is_not(None)).order_by(players.c.created_at)
    ).all()
    taken: set[str] = set()
    for player_id, name in accounts:
        unique, n = name, 1
        while unique.lower() in taken:
            n += 1
            unique = f"{name[: 40 - len(str(n)) - 1]} {n}"
        taken.add(unique.lower())
        connection.execute(
            players.update().where(players.c.id == player_id).values(name=unique, account_name=unique.lower())
        )
    op.create_index("ix_players_account_name", "players", ["account_name"], unique=True)
    op.create_table(
        "name_changes",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        _player("player_id", index=True),
        sa.Column("old_name", sa.String(40), nullable=False),
        sa.Column("new_name", sa.String(40), nullable=False),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "follows",
        _player("follower_id", primary_key=True),
        _player("followee_id", primary_key=True, index=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "blocks",
        _player("blocker_id", primary_key=True),
        _player("blocked_id", primary_key=True, index=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "invitations",
        sa.Column(
            "table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True, nullable=False
        ),
        sa.Column("seat", sa.Integer, primary_key=True, nullable=False),
        _player("player_id", primary_key=True, index=True),
        _player("by_player_id"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    for table in ("invitations", "blocks", "follows", "name_changes"):
        op.drop_table(table)
    op.drop_index("ix_players_account_name", "players")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("seen_at")
        batch.drop_column("account_name")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("unrated_seat")
        batch.drop_column("unrated")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("client")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("rematch")
        batch.drop_column("show_hands")
