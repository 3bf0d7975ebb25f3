"""Mistral: ``reader`` reads chat completions whose content is a list of chunks and
Conversations responses (``outputs``), which cite by reference chunks."""
