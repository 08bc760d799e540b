"""Retries through a real proxy in front of a real gateway: one Idempotency-Key per call on every attempt, reads
retried, a POST without a key never repeated, and a give-up after max_retries. test/sdk/python.test.ts then
counts the withdrawals the gateway made for these merchants (one each)."""

import unittest
from unittest import mock

import gateway_sdk._http
from gateway_sdk import GatewayConnectionError, GatewayError, ServerError

from .support import TroubledProxy, gateway_for

UUID = r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"


class RetriesTest(unittest.TestCase):
    def test_a_cashout_whose_answer_was_lost_is_asked_again_with_the_same_key(self):
        # the first attempt reaches the gateway, which makes the withdrawal; its answer never arrives
        with TroubledProxy(lambda _, n: "forward-then-drop" if n == 1 else "forward") as proxy:
            created = gateway_for("retry", proxy.url).cashouts.create({"amount": 100, "pixKey": "52998224725"})
            self.assertEqual(len(proxy.seen), 2)
        first, second = proxy.seen
        self.assertRegex(first["idempotency_key"], UUID)
        self.assertEqual(second["idempotency_key"], first["idempotency_key"])
        self.assertEqual(created["status"], "PENDING")
        # the retry was answered with the withdrawal the first attempt made
        self.assertEqual(gateway_for("retry").cashouts.retrieve(created["uuid"])["id"], created["id"])

    def test_a_503_is_retried_after_retry_after_with_the_same_key(self):
        with TroubledProxy(lambda _, n: {"status": 503, "retryAfter": "1"} if n == 1 else "forward") as proxy:
            with mock.patch.object(gateway_sdk._http, "_sleep", wraps=gateway_sdk._http._sleep) as slept:
                created = gateway_for("retry503", proxy.url).cashouts.create(
                    {"amount": 100, "pixKey": "52998224725"}, idempotency_key="saque-42"
                )
            self.assertEqual([c.args for c in slept.call_args_list], [(1.0,)])  # waited as Retry-After said
        self.assertEqual([s["idempotency_key"] for s in proxy.seen], ["saque-42", "saque-42"])
        self.assertEqual(created["status"], "PENDING")

    def test_a_dropped_read_is_retried(self):
        with TroubledProxy(lambda _, n: "drop" if n == 1 else "forward") as proxy:
            self.assertEqual(gateway_for("empty", proxy.url).balance.retrieve()["total"], 0)
            self.assertEqual(len(proxy.seen), 2)

    def test_a_post_without_a_key_is_never_repeated_and_reads_give_up_after_max_retries(self):
        with TroubledProxy(lambda _, n: {"status": 503, "retryAfter": "0"}) as proxy:
            with self.assertRaises(ServerError) as caught:
                gateway_for("empty", proxy.url).payment_links.create(
                    {"title": "Curso", "amountCents": 1000, "methods": ["PIX"]}
                )
            self.assertEqual((caught.exception.status, caught.exception.code), (503, "SERVICE_UNAVAILABLE"))
            self.assertEqual(len(proxy.seen), 1)  # a POST without an Idempotency-Key is never repeated
            with self.assertRaises(GatewayError):
                gateway_for("empty", proxy.url, max_retries=2).balance.retrieve()
            self.assertEqual(len(proxy.seen), 1 + 3)

    def test_no_answer_at_all_is_a_connection_error(self):
        with TroubledProxy(lambda _, n: "drop") as proxy:
            with self.assertRaises(GatewayConnectionError) as caught:
                gateway_for("empty", proxy.url, max_retries=1).cashouts.create(
                    {"amount": 100, "pixKey": "52998224725"}, idempotency_key="saque-43"
                )
            self.assertIsInstance(caught.exception, ConnectionError)
            self.assertIsNotNone(caught.exception.__cause__)
            self.assertEqual([s["idempotency_key"] for s in proxy.seen], ["saque-43", "saque-43"])


if __name__ == "__main__":
    unittest.main()
