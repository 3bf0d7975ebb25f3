"""The proto3 JSON codec behind :mod:`grounding_protos.codec`: per-type plans compiled
from descriptors (``plan``), what those plans call at run time (``runtime``), JSON text
(``text``) and the entry points (``codec``).

Imports the generated layer (:mod:`grounding_protos._proto`) and nothing above it.
"""
