"""The citation core: the data model (``model``), the raw records that readers produce
(``raw``), field access over every object kind (``access``), and placing and repairing
spans (``resolve``).

Imports :mod:`grounding_protos._offsets`, :mod:`grounding_protos._exceptions` and the
generated layer; never a reader, a stream, a renderer or the CLI.
"""
