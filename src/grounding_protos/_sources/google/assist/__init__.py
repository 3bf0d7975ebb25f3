"""Discovery Engine Assist: ``reader`` reads an ``AssistAnswer`` or a ``StreamAssistResponse``;
``merger`` merges a ``:streamAssist`` stream into one response."""
