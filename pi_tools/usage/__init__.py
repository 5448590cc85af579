"""Tokens and cost: the one usage counter (`counter`: what counts, once, with which cost), the scan that sums it
over session files (`scan`), pricing from Pi's catalog and a bundled LiteLLM table
(`pricing`), the report `pi-tools usage` prints (`report`) and its chart (`chart`). `corpus` counts the index's
usage rows with the same counter."""
