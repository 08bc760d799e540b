"""verify_webhook with a real delivery of the gateway, deliveries that must not verify, and the TypeScript
SDK's verifyWebhook verdicts on the same inputs (computed by test/sdk/python.test.ts), which it must match."""

import base64
import email.message
import hashlib
import hmac
import json
import time
import unittest
from unittest import mock

import gateway_sdk.webhooks
from gateway_sdk import WebhookVerificationError, verify_webhook
from gateway_sdk.types import SalePaidWebhook, UnknownWebhook

from .support import fixture


def delivery():
    d = fixture()["delivery"]
    return base64.b64decode(d["bodyBase64"]), dict(d["headers"]), d["secret"]


def signed(body: bytes, secret: str, event_id: str, timestamp: int) -> dict:
    """Headers signing body at timestamp as the gateway signs (the scheme of docs/webhooks.md)."""
    service = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    key = base64.b64decode(secret[len("whsec_") :])
    standard = hmac.new(key, f"{event_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    return {
        "X-Service-Signature": f"sha256={service}",
        "X-Service-Timestamp": str(timestamp),
        "X-Service-Event-Id": event_id,
        "webhook-id": event_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": "v1," + base64.b64encode(standard).decode(),
    }


class VerifyWebhookTest(unittest.TestCase):
    def test_a_real_delivery_verifies(self):
        body, headers, secret = delivery()
        event = verify_webhook(body=body, headers=headers, secret=secret)
        self.assertIsInstance(event, SalePaidWebhook)
        self.assertEqual(event.event_type, "sale.paid")
        self.assertEqual(event.event_id, headers["x-service-event-id"])
        self.assertEqual(event.timestamp, int(headers["x-service-timestamp"]))
        if event.event_type == "sale.paid":  # narrows the payload to SaleNotification
            self.assertEqual(event.payload["status"], "PAGO")
            self.assertEqual(event.payload["id"], fixture()["delivery"]["saleId"])

        # the body as text, the headers as http.client / email parse them (names in any case), a rotation's list
        message = email.message.Message()
        for key, value in headers.items():
            message[key.title()] = value
        again = verify_webhook(body=body.decode("utf-8"), headers=message, secret=["whsec_AAAA", secret])
        self.assertEqual(again, event)

    def test_tampered_relabelled_or_foreign_deliveries_do_not_verify(self):
        body, headers, secret = delivery()
        cases = {
            "signature mismatch": dict(body=body.replace(b'"PAGO"', b'"ESTORNADO"'), headers=headers, secret=secret),
            "signature mismatch ": dict(body=body, headers=headers, secret="whsec_AAAA"),
            "X-Service-Event-Type does not match the signed body": dict(
                body=body, headers={**headers, "x-service-event-type": "sale.refunded"}, secret=secret
            ),
            "X-Service-Event-Id does not match the signed webhook-id": dict(
                body=body, headers={**headers, "x-service-event-id": "another"}, secret=secret
            ),
            "the event id is not signed": dict(body=body, headers={**headers, "webhook-id": "another"}, secret=secret),
            "missing X-Service-Signature": dict(
                body=body, headers={k: v for k, v in headers.items() if k != "x-service-signature"}, secret=secret
            ),
        }
        for reason, arguments in cases.items():
            with self.subTest(reason), self.assertRaises(WebhookVerificationError) as caught:
                verify_webhook(**arguments)
            self.assertEqual(str(caught.exception), reason.strip())
        with self.assertRaises(TypeError):
            verify_webhook(body=body, headers=headers, secret=[])
        with self.assertRaises(TypeError):
            verify_webhook(body=json.loads(body), headers=headers, secret=secret)  # type: ignore[arg-type]

    def test_a_missing_secret_or_a_parsed_body_is_the_receivers_setup(self):
        body, headers, _ = delivery()
        for secret in (None, "", [], [""]):
            with self.assertRaisesRegex(TypeError, "secret is required: the webhook's whsec_"):
                verify_webhook(body=body, headers=headers, secret=secret)  # type: ignore[arg-type]
        with self.assertRaisesRegex(TypeError, "a parsed body does not verify"):
            verify_webhook(body=json.loads(body), headers=headers, secret="whsec_x")  # type: ignore[arg-type]

    def test_a_delivery_outside_the_tolerance_window_does_not_verify(self):
        body, headers, secret = delivery()
        with self.assertRaisesRegex(WebhookVerificationError, "^timestamp outside the tolerance window$"):
            verify_webhook(body=body, headers=headers, secret=secret, tolerance_seconds=-1)
        event_id = headers["webhook-id"]
        now = int(time.time())
        # signed 330 s ago (or ahead): refused with the default 300 s; accepted with a wider window
        for at in (now - 330, now + 330):
            late = signed(body, secret, event_id, at)
            with self.subTest(at=at - now), self.assertRaisesRegex(WebhookVerificationError, "tolerance window"):
                verify_webhook(body=body, headers=late, secret=secret)
            self.assertEqual(verify_webhook(body=body, headers=late, secret=secret, tolerance_seconds=600).timestamp, at)
        recent = signed(body, secret, event_id, now - 240)
        self.assertEqual(verify_webhook(body=body, headers=recent, secret=secret).event_id, event_id)

    def test_the_window_edge_on_a_fixed_clock(self):
        # |now - timestamp| <= tolerance, now the whole seconds of the clock, as the TypeScript SDK counts
        body, headers, secret = delivery()
        event_id = headers["webhook-id"]
        clock = 1_900_000_000.9
        with mock.patch.object(gateway_sdk.webhooks, "time", mock.Mock(time=lambda: clock)):
            for offset, tolerance, verifies in [(300, 300, True), (-300, 300, True), (301, 300, False),
                                                (-301, 300, False), (0, 0, True), (1, 0, False), (60, 59, False)]:
                at = int(clock) - offset
                with self.subTest(offset=offset, tolerance=tolerance):
                    arguments = dict(body=body, headers=signed(body, secret, event_id, at), secret=secret)
                    if verifies:
                        self.assertEqual(verify_webhook(**arguments, tolerance_seconds=tolerance).timestamp, at)
                    else:
                        with self.assertRaisesRegex(WebhookVerificationError, "tolerance window"):
                            verify_webhook(**arguments, tolerance_seconds=tolerance)

    def test_an_event_it_does_not_know_verifies_with_event_type_none(self):
        body, headers, secret = delivery()
        newer = json.dumps({"type": "TRANSACTION", "status": "SOMETHING_NEW", "id": 1}).encode()
        event = verify_webhook(
            body=newer, headers=signed(newer, secret, headers["webhook-id"], int(time.time())), secret=secret
        )
        self.assertIsInstance(event, UnknownWebhook)
        self.assertIsNone(event.event_type)
        self.assertEqual(event.payload["status"], "SOMETHING_NEW")

    def test_the_same_verdicts_as_the_typescript_sdk(self):
        cases = fixture()["verifyCases"]
        self.assertGreater(len(cases), 10)
        for case in cases:
            with self.subTest(case["name"]):
                arguments = dict(
                    body=base64.b64decode(case["bodyBase64"]), headers=case["headers"], secret=case["secret"]
                )
                if "toleranceSeconds" in case:
                    arguments["tolerance_seconds"] = case["toleranceSeconds"]
                expected = case["expected"]
                if "error" in expected:
                    with self.assertRaises(WebhookVerificationError) as caught:
                        verify_webhook(**arguments)
                    self.assertEqual(str(caught.exception), expected["error"])
                else:
                    event = verify_webhook(**arguments)
                    got = {"eventId": event.event_id, "eventType": event.event_type, "timestamp": event.timestamp}
                    self.assertEqual(got, {k: expected[k] for k in ("eventId", "eventType", "timestamp")})
                    self.assertEqual(event.payload, expected["payload"])


if __name__ == "__main__":
    unittest.main()
