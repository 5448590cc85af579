"""What happened to each stored entry: in the context, sent to the model, shown in Pi's TUI, and why not
(`rows`); `tasks` runs `pi-tools visibility` per file on the engine."""
