"""Streams: recordings parsed into numbered chunks (``parse``), one merger per vendor
that joins the chunks into that vendor's final response (``gemini``, ``answer`` for
Discovery Engine, ``anthropic``, ``cohere``, ``bedrock`` with its raw event stream),
what the mergers share (``common``), and the entry points that take
any stream input and read the merged response as a whole (``read``).

Imports ``_citations.read``, the readers and the citation core; nothing above. A new
vendor's stream is one more merger here, never a second reader.
"""
