"""Every method of the client and the route ROUTES says it calls: each method is called (against a recorder, no
gateway) and the request it makes is held against its ROUTES entry; a method ROUTES lacks, or an entry without a
method, fails. test/sdk/coverage.test.ts holds ROUTES against the gateway's /openapi.json. Also cashout_body."""

import inspect
import re
import unittest
from typing import Any, Dict, Iterator, List, Tuple
from unittest import mock

from gateway_sdk import Gateway
from gateway_sdk._http import HttpClient
from gateway_sdk.client import ROUTES, cashout_body


def methods(obj: Any, prefix: str = "") -> Iterator[Tuple[str, Any]]:
    """The public methods of the client's resources (and their nested resources), by dotted name."""
    for name, value in vars(obj).items():
        if name.startswith("_") or not hasattr(value, "__dict__"):
            continue
        for attr, member in inspect.getmembers(type(value), inspect.isfunction):
            if not attr.startswith("_"):
                yield f"{prefix}{name}.{attr}", getattr(value, attr)
        yield from methods(value, f"{prefix}{name}.")


def template(route: str) -> "re.Pattern[str]":
    method, path = route.split(" ", 1)
    # a path parameter is one of the arguments the method was given (p0, p1, ...), never a constant
    return re.compile(f"^{method} " + re.sub(r"\\\{[^}]+\\\}", "p[0-9]+", re.escape(path)) + "$")


class RoutesTest(unittest.TestCase):
    def setUp(self) -> None:
        self.gateway = Gateway(base_url="http://sdk.invalid", public_key="pk_test", private_key="sk_test")
        self.sent: List[str] = []

        def request(_self: Any, method: str, path: str, *args: Any, **kwargs: Any) -> Any:
            self.sent.append(f"{method} {path.split('?')[0]}")
            return b"" if kwargs.get("raw") else {"data": [], "nextCursor": None}

        def stream(_self: Any, path: str, *args: Any, **kwargs: Any) -> Any:
            self.sent.append(f"GET {path.split('?')[0]}")
            return None

        for name, fake in (("request", request), ("stream", stream)):
            patcher = mock.patch.object(HttpClient, name, fake)
            patcher.start()
            self.addCleanup(patcher.stop)

    def test_every_method_has_its_route_and_every_route_its_method(self) -> None:
        found: Dict[str, Any] = dict(methods(self.gateway))
        self.assertEqual(sorted(found), sorted(ROUTES))

    def test_each_method_calls_the_route_routes_names(self) -> None:
        for name, method in methods(self.gateway):
            with self.subTest(name):
                self.sent.clear()
                required = [
                    p
                    for p in inspect.signature(method).parameters.values()
                    if p.default is inspect.Parameter.empty
                    and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                ]
                keywords = {
                    p.name: "2026-01-01"
                    for p in inspect.signature(method).parameters.values()
                    if p.default is inspect.Parameter.empty and p.kind is p.KEYWORD_ONLY
                }
                result = method(*[f"p{i}" for i in range(len(required))], **keywords)
                if inspect.isgenerator(result):
                    list(result)
                self.assertEqual(len(self.sent), 1, self.sent)
                self.assertRegex(self.sent[0], template(ROUTES[name]))


class CashoutBodyTest(unittest.TestCase):
    def test_cents_become_the_contracts_reais_string(self) -> None:
        self.assertEqual(cashout_body({"amountCents": 15000, "pixKey": "k"}), {"pixKey": "k", "amount": "150.00"})
        self.assertEqual(cashout_body({"amountCents": 10005})["amount"], "100.05")
        self.assertEqual(cashout_body({"amount": "150.00"}), {"amount": "150.00"})  # reais go as they are

    def test_refuses_both_units_and_what_is_not_whole_cents(self) -> None:
        both = {"amount": "150.00", "amountCents": 15000}
        for body in (both, {"amountCents": 150.5}, {"amountCents": -1}, {"amountCents": True}):
            with self.subTest(body), self.assertRaises(ValueError):
                cashout_body(body)


if __name__ == "__main__":
    unittest.main()
