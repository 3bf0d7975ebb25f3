"""The generated layer: the package's own descriptor pool, the message classes made
from it, finding them by name, and the errors of malformed wire bytes.

Imports only protobuf, googleapis-common-protos and :mod:`grounding_protos._exceptions`;
nothing of the helpers above it. The ``*_pb2`` modules under ``grounding_protos/google/``
are build outputs of ``build_protos.py`` that bind this pool's classes.
"""
