"""Alembic environment: runs on the connection handed over by luz.server.db.migrate (or a URL)."""

from alembic import context
from sqlalchemy import create_engine

from luz.server.db import Base

target_metadata = Base.metadata
connection = context.config.attributes.get("connection")
if connection is None:
    url = context.config.get_main_option("sqlalchemy.url")
    assert url, "set sqlalchemy.url or pass a connection"
    with create_engine(url).connect() as fresh:
        context.configure(connection=fresh, target_metadata=target_metadata)
        with context.begin_transaction():
            context.run_migrations()
else:
    context.configure(connection=connection, target_metadata=target_metadata)
    with context.begin_transaction():
        context.run_migrations()
