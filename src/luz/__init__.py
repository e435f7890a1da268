"""luz: LUZ, the trick-taking game in which you never see the values of your own cards."""

__version__ = "0.1.0"
