"""`python -m pi_tools` runs the CLI."""

from pi_tools.cli.app import main

main()
