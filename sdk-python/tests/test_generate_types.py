"""tools/generate_types.py on shapes the gateway's document may grow into, and gateway_sdk.types (its output for
today's document, which test/sdk/python.test.ts compares with what it makes of a running gateway's) as Python
reads it. No gateway needed."""

import dataclasses
import os
import sys
import typing
import unittest

import gateway_sdk.types as types

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
import generate_types  # noqa: E402

DOCUMENT = {
    "openapi": "3.1.0",
    "paths": {
        "/things": {
            "post": {
                "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Node"}}}},
                "responses": {"201": {"content": {"application/json": {"schema": {"type": "object", "properties": {
                    "id": {"type": "integer"}, "kind": {"$ref": "#/components/schemas/Kind"}}, "required": ["id"]}}}}},
            }
        }
    },
    "components": {
        "schemas": {
            # a cycle, keys that are not identifiers (one a keyword), a type list with null
            "Node": {
                "type": "object",
                "required": ["children"],
                "properties": {
                    "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}},
                    "from": {"type": "string"},
                    "x-y": {"type": ["integer", "null"]},
                },
            },
            "Kind": {"type": "string", "enum": ["a", "b", None], "description": "A kind"},
            "Pair": {
                "type": "object",
                "properties": {
                    "k": {"const": 1},
                    "m": {"allOf": [{"$ref": "#/components/schemas/Kind"}]},
                    "flag": {"type": "boolean", "enum": [False]},
                    "tags": {"type": "object", "additionalProperties": {"type": "string"}},
                    "deep": {"type": "array", "items": {"type": "array", "items": {
                        "type": "object", "properties": {"q": {"type": "number"}}}}},
                    "either": {"anyOf": [{"type": "string", "enum": ["x"]}, {"type": "string", "enum": ["y"]}]},
                },
            },
        }
    },
    "webhooks": {
        "thing.happened": {
            "post": {
                "summary": "A thing happened",
                "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pair"}}}},
            }
        }
    },
}


class GenerateTypesTest(unittest.TestCase):
    def module(self, document):
        namespace = {"__name__": "generated"}
        exec(compile(generate_types.generate(document), "types.py", "exec"), namespace)
        return namespace

    def test_shapes(self):
        saved = generate_types.OPERATIONS[:]
        generate_types.OPERATIONS[:] = [("Made", "/things", "post", "201"), ("NodeBody", "/things", "post", "body")]
        try:
            ns = self.module(DOCUMENT)
        finally:
            generate_types.OPERATIONS[:] = saved
        hints = lambda name: typing.get_type_hints(ns[name], ns)  # noqa: E731
        self.assertEqual(hints("Node"), {"children": list[ns["Node"]], "from": str, "x-y": typing.Optional[int]})
        self.assertEqual(ns["Node"].__required_keys__, frozenset({"children"}))
        self.assertEqual(ns["Node"].__optional_keys__, frozenset({"from", "x-y"}))
        self.assertEqual(ns["Kind"], typing.Optional[typing.Literal["a", "b"]])
        pair = hints("Pair")
        self.assertEqual(pair["k"], typing.Literal[1])
        self.assertEqual(pair["m"], ns["Kind"])
        self.assertEqual(pair["flag"], typing.Literal[False])
        self.assertEqual(pair["tags"], dict[str, str])
        self.assertEqual(pair["deep"], list[list[ns["PairDeepItemItem"]]])
        self.assertEqual(pair["either"], ns["PairEither"])
        self.assertEqual(ns["PairEither"], typing.Literal["x", "y"])
        self.assertEqual(ns["NodeBody"], ns["Node"])  # a $ref answer is an alias of its schema
        self.assertEqual(ns["Made"].__required_keys__, frozenset({"id"}))
        event = ns["ThingHappenedWebhook"](event_id="e", event_type="thing.happened", timestamp=1, payload={})
        self.assertEqual(hints("ThingHappenedWebhook")["payload"], ns["Pair"])
        self.assertIs(ns["WEBHOOK_EVENT_CLASSES"]["thing.happened"], type(event))
        self.assertEqual(typing.get_args(ns["WebhookEventType"]), ("thing.happened",))

    def test_refusals(self):
        saved = generate_types.OPERATIONS[:]
        cases = [
            ({**DOCUMENT, "webhooks": {}}, [], "no webhooks"),
            ({"openapi": "3.1.0"}, [], "not an OpenAPI document"),
            ({**DOCUMENT, "components": {"schemas": {"A": {"$ref": "#/components/schemas/B"}}}}, [], "missing schema"),
            ({**DOCUMENT, "paths": {}}, saved, "has no GET /api/public/balance"),  # the SDK's routes must be there
        ]
        try:
            for document, operations, reason in cases:
                generate_types.OPERATIONS[:] = operations
                with self.subTest(reason), self.assertRaisesRegex(generate_types.GeneratorError, reason):
                    generate_types.generate(document)
        finally:
            generate_types.OPERATIONS[:] = saved

    def test_the_committed_types_read_as_python(self):
        checked = 0
        for name, value in vars(types).items():
            if isinstance(value, type) and (typing.is_typeddict(value) or dataclasses.is_dataclass(value)):
                self.assertTrue(typing.get_type_hints(value), name)  # every annotation resolves
                checked += 1
        self.assertGreater(checked, 30)
        self.assertEqual(set(typing.get_args(types.WebhookEventType)) | {"webhook.test"}, set(types.WEBHOOK_EVENT_CLASSES))
        self.assertEqual(len(typing.get_args(types.WebhookEvent)), len(types.WEBHOOK_EVENT_CLASSES) + 1)
        for event, cls in types.WEBHOOK_EVENT_CLASSES.items():
            self.assertEqual(typing.get_type_hints(cls)["event_type"], typing.Literal[event])


if __name__ == "__main__":
    unittest.main()
