"""`python -m tcpstart` is the `tcpstart` command."""

from tcpstart.cli import command

command()
