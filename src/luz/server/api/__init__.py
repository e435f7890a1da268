"""The server's HTTP and WebSocket API (FastAPI): the composition root (``app``), one router module per area
(``tables``, ``live`` with ``messages``, ``games``, ``identity``, ``history``, ``ratings``), request bodies
(``schemas``) and what routes share (``deps``). Nothing imports ``api`` but the server's entry point."""
