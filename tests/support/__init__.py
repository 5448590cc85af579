"""Helpers shared by the tests (not tests themselves): goldens, oracle paths, payload and stream case
harnesses, the differential comparison, services for the Dask tests, made sessions, the CLI runners.

Imported as `support.<module>`; tests/conftest.py puts tests/ on sys.path (scripts/digest_oracle.py and
scripts/fuzz_oracle.py do the same)."""
