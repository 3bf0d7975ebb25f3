"""``python -m grounding_protos``: the ``grounding-protos`` command line."""

from grounding_protos.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
