"""The document stages as functions: a session to its `context` document, to `llm` (convertToLlm), to `payload`
(whole, or in parts for large sessions) (`stages`), and the per-file tasks the engine runs for them (`tasks`)."""
