"""Where 0.1 kept the citation model; kept so that objects pickled by 0.1 load.

Import these classes from :mod:`grounding_protos.citations`.
"""

from grounding_protos._core.model import (
    Citation,
    Grounded,
    Problem,
    SearchInfo,
    Source,
    UrlStatus,
)

__all__ = ["Citation", "Grounded", "Problem", "SearchInfo", "Source", "UrlStatus"]
