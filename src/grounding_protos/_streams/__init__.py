"""The stream entry points: ``read_stream``, ``aread_stream``, ``read_turns`` and
``StreamReader`` take any stream input, have the source's merger (``_sources``)
join it into that source's final response, and read that response as a whole with
``read``'s options.
"""
