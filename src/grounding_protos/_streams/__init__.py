"""Streams: recordings parsed into numbered chunks (``parse``), chunks merged into one
response per vendor (``read`` for Gemini, ``answer`` for Discovery Engine), and the merged
response read as a whole (``read``).

Imports ``_citations.read``, the readers and the citation core; nothing above.
"""
