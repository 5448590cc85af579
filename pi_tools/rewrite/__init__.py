"""Rewriting session content: secret detection (and, later, repair/slim/scrub producing new sessions)."""
