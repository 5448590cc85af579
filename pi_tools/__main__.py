"""`python -m pi_tools` runs the CLI."""

from pi_tools.cli.entry import main

main()
