"""What the public facades do with the readers' records: ``read`` and ``extract``,
``validate`` and its checks, the exports to other vendors' formats, the conversions
between schemas, and the redirect front (``links``, which imports :mod:`grounding_protos._net`
lazily).

Imports the readers, the citation core, the codec and the generated layer.
"""
