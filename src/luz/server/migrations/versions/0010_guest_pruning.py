"""Unused guests pruned: the columns that refer to a player and had no index get one, so that deleting a player
finds its rows at once (its chat messages kept without it, the invitations it made gone).

Revision ID: 0010
Revises: 0009
"""

from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_chat_player_id", "chat", ["player_id"])
    op.create_index("ix_invitations_by_player_id", "invitations", ["by_player_id"])


def downgrade() -> None:
    op.drop_index("ix_invitations_by_player_id", "invitations")
    op.drop_index("ix_chat_player_id", "chat")
