"""Amazon Bedrock: ``retrieve_and_generate`` (a RetrieveAndGenerate response), ``converse``
(a Converse response with ``citationsContent``) and ``converse_stream`` (a ConverseStream,
as boto3's events or the raw ``application/vnd.amazon.eventstream`` bytes)."""
