"""The readers: one module per input shape or vendor, each turning an input into raw
records (:mod:`grounding_protos._core.raw`), their shared helpers (``common``), and the
dispatch that picks the reader (``dispatch``).

Imports the citation core and the generated layer. A new shape is one more module here,
listed in ``dispatch.READERS``.
"""
