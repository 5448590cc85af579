"""The pipe protocol: how stages hand each other documents as JSON Lines (`documents`: writing them as
JavaScript's JSON.stringify would, reading them back, and telling a session file from stage documents)."""
