"""The command line behind :mod:`grounding_protos.cli`: the parser and entry point
(``main``), what a command does to one document (``commands``), loading inputs and
recorded streams (``load``), files and formats (``io``), JSONL batches (``batch``, and
``lines`` behind :mod:`grounding_protos.batch`).

The top layer: imports the public facades and any layer below; nothing imports it but
:mod:`grounding_protos.cli`, :mod:`grounding_protos.batch` and ``__main__``.
"""
