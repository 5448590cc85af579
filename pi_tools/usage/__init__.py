"""Tokens and cost: the one usage counter (`scan`), pricing from Pi's catalog and a bundled LiteLLM table
(`pricing`), the report `pi-tools usage` prints (`report`) and its chart (`chart`). `corpus` counts the index's
usage rows with the same counter."""
