"""Mistral: ``reader`` reads chat completions whose content is a list of chunks (alone,
or last in the chat's messages) and Conversations responses (``outputs``), which cite by
reference chunks; ``merger`` merges a Conversations stream (a chat stream is a Chat
Completions one, merged by ``_sources.openai.chat_stream``)."""
