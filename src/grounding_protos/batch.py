"""JSONL batches from Python: the command line's ``--jsonl`` processing, line by line.

What ``grounding-protos render|validate|inspect --jsonl`` and ``convert --from jsonl``
do to each line, for running the same conversion on an engine of your choice (a
Dask bag, see ``docs/scale-out.md``). These functions are a facade over the command
line's own per-line code: the output lines are the ones the command writes.

>>> from grounding_protos.batch import process_lines
>>> lines = ['{"answerText": "Köln", "citations": [{"endIndex": "5"}]}\\n', "\\n", "{\\n"]
>>> for out in process_lines(lines, "validate"):
...     print(out)
{"line": 1, "ok": true, "problems": []}
{"line": 3, "ok": false, "error": "invalid JSON: Expecting property name enclosed in \
double quotes at column 2", "input": "{"}
"""

from grounding_protos._cli.lines import (
    Command,
    ErrorMode,
    FailedLines,
    LineOptions,
    process_line,
    process_lines,
)

__all__ = ["Command", "ErrorMode", "FailedLines", "LineOptions", "process_line", "process_lines"]
