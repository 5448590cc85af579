"""Sessions as OpenTelemetry GenAI traces (`pi-tools trace`): one trace per session, spans per the GenAI
semantic conventions, written as OTLP JSON or sent over OTLP HTTP/protobuf (docs/trace.md)."""
