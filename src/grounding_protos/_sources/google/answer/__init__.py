"""Discovery Engine answers (``:answer``): ``reader`` reads an ``Answer`` or an
``AnswerQueryResponse``; ``merger`` merges a ``:streamAnswer`` stream into one ``Answer``."""
