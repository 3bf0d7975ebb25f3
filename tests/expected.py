"""Facts the tests check the build against, written down independently of the code."""

# Every .proto file that gets a generated _pb2 module and stub: the vendored schemas
# and the well-known types their fields use.
GENERATED_STEMS = (
    "google/cloud/dialogflow/v2beta1/grounding",
    "google/cloud/discoveryengine/v1/answer",
    "google/cloud/discoveryengine/v1/safety",
    "google/cloud/discoveryengine/v1beta/grounding",
    "google/ai/generativelanguage/v1beta3/citation",
    "google/protobuf/timestamp",
    "google/protobuf/struct",
)
