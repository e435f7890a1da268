"""Helpers shared by the tests (on the test path: ``from support.server import Peer``)."""
