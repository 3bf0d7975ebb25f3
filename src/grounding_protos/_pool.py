"""Where 0.1 kept the descriptor pool; kept so that messages pickled by 0.1 load.

A pickled message names ``grounding_protos._pool._rebuild`` (see
:mod:`grounding_protos._proto.pool`).
"""

from grounding_protos._proto.pool import _rebuild

__all__ = ["_rebuild"]
