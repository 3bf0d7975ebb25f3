"""The ``grounding-protos`` command line (also ``python -m grounding_protos``).

Commands: ``types``, ``decode``, ``encode``, ``convert``, ``render``, ``validate``,
``inspect``; ``grounding-protos COMMAND --help`` describes each, with examples
(the documentation's "Command line" guide has more).

Exit status: 0 when all is well, 1 when problems were found (``validate``,
``inspect``, an answer ``render`` cannot place, failed lines of a batch), 2 for bad
usage or input that cannot be read or decoded. Errors are one line on stderr,
``grounding-protos: error: …``; ``--debug`` shows the traceback instead.

:func:`main` takes the arguments as a list and returns the exit status, so the
command line can be run in-process.
"""

from grounding_protos._cli.main import PROG as PROG
from grounding_protos._cli.main import build_parser as build_parser
from grounding_protos._cli.main import main

__all__ = ["main"]
