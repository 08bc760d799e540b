"""Typed errors of a real gateway's answers, whichever error body shape they came in."""

import pickle
import unittest

from gateway_sdk import (
    AuthenticationError,
    BadRequestError,
    Gateway,
    GatewayError,
    NotFoundError,
    UnprocessableEntityError,
)

from .support import fixture, gateway_for


class ErrorsTest(unittest.TestCase):
    def test_400_validation(self):
        with self.assertRaises(BadRequestError) as caught:
            gateway_for("empty").cashouts.create({"amount": "abc", "pixKey": "1"})  # type: ignore[typeddict-item]
        err = caught.exception
        self.assertIsInstance(err, GatewayError)
        self.assertEqual((err.status, err.code), (400, "VALIDATION_ERROR"))  # shape D {message, error}
        self.assertTrue(err.message)
        self.assertEqual(str(err), err.message)
        self.assertTrue(err.request_id)
        self.assertEqual(err.body["error"], "VALIDATION_ERROR")

    def test_422_business_rule(self):
        with self.assertRaises(UnprocessableEntityError) as caught:
            gateway_for("empty").cashouts.create({"amount": 150, "pixKey": "52998224725"})
        err = caught.exception
        self.assertEqual((err.status, err.code), (422, "INSUFFICIENT_BALANCE"))  # shape C {message, errorType}
        copy = pickle.loads(pickle.dumps(err))  # e.g. a task queue's result
        self.assertEqual((type(copy), copy.status, copy.code, copy.request_id), (type(err), 422, err.code, err.request_id))

    def test_404_envelope(self):
        with self.assertRaises(NotFoundError) as caught:
            gateway_for("empty").events.retrieve("0190a000-0000-7000-8000-000000000000")
        err = caught.exception
        self.assertEqual((err.status, err.code), (404, "NOT_FOUND"))  # shape A {success, error: {code, message}}
        self.assertIs(err.body["success"], False)

    def test_401_unknown_keys(self):
        stranger = Gateway(base_url=fixture()["gatewayUrl"], public_key="pk_x", private_key="sk_x")
        with self.assertRaises(AuthenticationError) as caught:
            stranger.balance.retrieve()
        self.assertEqual((caught.exception.status, caught.exception.code), (401, "UNAUTHORIZED"))  # shape E

    def test_arguments(self):
        with self.assertRaises(ValueError):
            Gateway(base_url="", public_key="pk", private_key="sk")
        with self.assertRaises(ValueError):
            Gateway(base_url=fixture()["gatewayUrl"], public_key="pk", private_key="")
        # an address without its scheme is told as such, not as a gateway that does not answer
        with self.assertRaisesRegex(ValueError, "with its scheme, such as http://localhost:3000, not 'localhost:3000'"):
            Gateway(base_url="localhost:3000", public_key="pk", private_key="sk")
        # JSON has no NaN: refused before anything is sent (json.dumps would send a bare NaN)
        gw = Gateway(base_url="http://127.0.0.1:9", public_key="pk", private_key="sk", max_retries=0)
        with self.assertRaisesRegex(ValueError, r"not finite \(NaN or an infinity\)"):
            gw.transactions.create({"amount": float("nan")})
        with self.assertRaisesRegex(ValueError, "not finite"):
            gw.transactions.refund(1, amount_cents=float("inf"))


if __name__ == "__main__":
    unittest.main()
