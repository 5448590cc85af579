"""Many sessions at once, as data: `index` writes a corpus as Parquet tables a database reads, and `search`
finds text in it (or in the files themselves), saying of each hit whether it is on the active path or on an
abandoned branch. Both run their per-file work through pi_tools.engine."""
