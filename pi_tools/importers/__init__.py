"""`pi-tools import`: other agents' sessions (Claude Code transcripts, Codex rollouts) as Pi sessions.

One module per job: `builder.py` builds one Pi session in Pi's JSONL shapes, `report.py` says per session what
was imported, mapped, kept aside and dropped, `detect.py` tells the kinds apart, `writer.py` places the files in
Pi's folder layout; each source (`claude_code/`, `codex/`) maps its own format onto the builder.
"""
