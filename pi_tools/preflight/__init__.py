"""`pi-tools preflight`: will the provider accept the request Pi 0.85 builds for this session, and if not, why.

The payload is built exactly as `pi-tools payload` builds it; the rules (one registry, `rules.py`, with one module
per API) then look at that payload the way each provider validates it on its side, and every offending payload
item is traced back to the session entry it came from (`provenance.py`, reusing render's payload mapping).
`replay.py` checks every request a session actually made against the verdict the provider gave.
"""
