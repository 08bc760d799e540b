"""The client against a real gateway: balance, cashouts, charges and events, as test/sdk/client.test.ts does."""

import unittest
from datetime import datetime, timedelta, timezone
from decimal import Decimal

from gateway_sdk import EventIdDeduplicator
from gateway_sdk.errors import ConflictError

from .support import gateway_for, sandbox_dispute, sandbox_status

UUID = r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"
CUSTOMER = {"name": "Maria Silva", "email": "maria@example.com", "document": "52998224725", "phone": "5511987654321"}


def sale_input(**overrides):
    return {
        "amount": 10000,
        "paymentMethod": "PIX",
        "customer": CUSTOMER,
        "items": [{"title": "Curso online", "unitPrice": 10000, "quantity": 1, "tangible": False}],
        **overrides,
    }


class ClientTest(unittest.TestCase):
    def test_balance_and_a_cashout(self):
        gw = gateway_for("funded")
        self.assertEqual(gw.balance.retrieve(), {"available": 50000, "blocked": 0, "total": 50000, "receivable": 0})
        created = gw.cashouts.create({"amount": 150, "pixKey": "52998224725", "pixKeyType": "CPF"})
        self.assertEqual(created["status"], "PENDING")
        self.assertEqual(created["amount"], "150.00")
        self.assertRegex(created["uuid"], UUID)
        by_uuid = gw.cashouts.retrieve(created["uuid"])
        self.assertEqual((by_uuid["id"], by_uuid["uuid"]), (created["id"], created["uuid"]))
        self.assertEqual(gw.cashouts.retrieve(created["id"])["uuid"], created["uuid"])
        balance = gw.balance.retrieve()
        self.assertEqual(balance["total"], 50000)
        self.assertLess(balance["available"], 50000)  # the withdrawal's amount and fees are blocked

    def test_a_charge_its_idempotency_key_and_the_events(self):
        gw = gateway_for("charges")
        charge = gw.transactions.create(sale_input(metadata={"orderId": "pedido-1001"}), idempotency_key="pedido-1001")
        self.assertEqual(charge["status"], "PENDENTE")
        self.assertTrue(charge["pixKey"])
        again = gw.transactions.create(sale_input(metadata={"orderId": "pedido-1001"}), idempotency_key="pedido-1001")
        self.assertEqual(again["id"], charge["id"])  # the same key answers the same charge
        sale = gw.transactions.retrieve(charge["id"])
        self.assertEqual((sale["id"], sale["status"]), (charge["id"], "PENDENTE"))
        self.assertEqual(sale["metadata"], {"orderId": "pedido-1001"})
        self.assertEqual(gw.transactions.retrieve(charge["uuid"])["id"], charge["id"])
        second = gw.transactions.create(sale_input())
        self.assertNotEqual(second["id"], charge["id"])

        page = gw.events.list(type=["sale.pending", "withdrawal.pending"], limit=1)
        self.assertEqual(len(page["data"]), 1)
        self.assertIsNotNone(page["nextCursor"])
        since = gw.events.list(type="sale.pending", since=datetime(2000, 1, 1, tzinfo=timezone.utc))
        self.assertEqual(len(since["data"]), 2)
        self.assertEqual(gw.events.list(type="sale.pending", until=datetime(2000, 1, 1, tzinfo=timezone.utc))["data"], [])
        # one event a page: the iterator follows nextCursor through every page, newest first
        events = list(gw.events.iterate(type="sale.pending", limit=1))
        self.assertEqual([e["data"]["id"] for e in events], [second["id"], charge["id"]])
        self.assertEqual({e["type"] for e in events}, {"sale.pending"})
        self.assertEqual(gw.events.retrieve(events[0]["id"])["id"], events[0]["id"])

        # the stream resumed after the older event (Last-Event-ID) gives the newer one first, and not the older
        answer = gw.events.stream(type="sale.pending", last_event_id=events[1]["id"])
        try:
            ids = []
            while not ids:
                line = answer.readline().decode()
                if line.startswith("id: "):
                    ids.append(line[4:].strip())
        finally:
            answer.close()
        self.assertEqual(ids, [events[0]["id"]])


    def test_a_paid_charge_refunded(self):
        gw = gateway_for("refunds")
        charge = gw.transactions.create(sale_input())
        sandbox_status("refunds", charge["id"], "PAGO")
        self.assertEqual(gw.transactions.retrieve(charge["id"])["status"], "PAGO")
        part = gw.transactions.refund(charge["id"], amount_cents=1000, idempotency_key="pedido-1-r1")
        self.assertEqual((part["id"], part["status"], part["refundedAmount"]), (charge["id"], "PAGO", 1000))
        again = gw.transactions.refund(charge["id"], amount_cents=1000, idempotency_key="pedido-1-r1")
        self.assertEqual(again["refundedAmount"], 1000)  # the same refund, not a second one
        rest = gw.transactions.refund(charge["id"])  # all that is left, under a generated key
        self.assertEqual((rest["status"], rest["refundedAmount"]), ("ESTORNADO", charge["amount"]))

    def test_sales_listed_cancelled_refunds_sandbox_and_webhooks(self):
        gw = gateway_for("integrators")
        made = [gw.transactions.create(sale_input(amount=1000 + i))["id"] for i in range(3)]
        self.assertEqual([s["id"] for s in gw.transactions.iterate(limit=2)], list(reversed(made)))
        self.assertEqual(gw.transactions.cancel(made[0])["status"], "CANCELADO")
        self.assertEqual(gw.sandbox.pay(made[1])["status"], "PAGO")
        gw.transactions.refund(made[1], amount_cents=300)
        self.assertEqual([r["amountCents"] for r in gw.transactions.refunds(made[1])], [300])
        self.assertEqual(gw.refunds.list(made[1]), gw.transactions.refunds(made[1]))
        hook = gw.webhooks.create({"webhookUrl": "https://loja.example.com/hooks", "events": ["sale.paid"]})
        self.assertTrue(hook["secret"].startswith("whsec_"))
        self.assertEqual([w["id"] for w in gw.webhooks.list()], [hook["id"]])
        gw.webhooks.delete(hook["id"])
        self.assertEqual(gw.webhooks.list(), [])
        seen = EventIdDeduplicator()
        self.assertEqual([seen.first_time("evt_1"), seen.first_time("evt_1"), seen.first_time("evt_2")], [True, False, True])

    def test_disputes(self):
        gw = gateway_for("refunds")
        charge = gw.transactions.create(sale_input())
        sandbox_status("refunds", charge["id"], "PAGO")
        opened = sandbox_dispute("refunds", charge["id"], "med")
        self.assertEqual(gw.disputes.retrieve(opened["id"]), opened)
        self.assertIn(opened["id"], [d["id"] for d in gw.disputes.list(status="needs_response")["data"]])
        accepted = gw.disputes.accept(opened["id"])
        self.assertEqual(accepted["status"], "accepted")
        self.assertNotIn(opened["id"], [d["id"] for d in gw.disputes.list(status="needs_response")["data"]])

    def test_capture_refuses_a_sale_not_authorized_and_receivables_list_by_date(self):
        gw = gateway_for("refunds")
        charge = gw.transactions.create(sale_input())
        with self.assertRaises(ConflictError):
            gw.transactions.capture(charge["id"], amount_cents=100)  # a PIX charge is never authorized
        page = gw.receivables.list(from_="2026-01-01", to="2026-03-31")
        self.assertEqual((page["from"], page["to"], page["data"]), ("2026-01-01", "2026-03-31", []))

    def test_payment_links_and_checkout_sessions(self):
        gw = gateway_for("checkout")
        link = gw.payment_links.create({"title": "Curso de fotografia", "amountCents": 19900, "methods": ["PIX"]})
        self.assertTrue(link["url"].endswith("/pay/" + link["slug"]))
        self.assertEqual((link["active"], link["uses"]), (True, 0))
        self.assertEqual(gw.payment_links.retrieve(link["id"])["id"], link["id"])
        self.assertIn(link["id"], [l["id"] for l in gw.payment_links.list(limit=100)["data"]])
        self.assertFalse(gw.payment_links.update(link["id"], {"active": False})["active"])
        session = gw.checkout.sessions.create(
            {
                "amountCents": 4990,
                "items": [{"title": "Camiseta", "unitPrice": 4990, "quantity": 1, "tangible": True}],
                "methods": ["PIX"],
                "successUrl": "https://loja.example.com/obrigado",
            }
        )
        self.assertEqual((session["status"], session["saleId"]), ("open", None))
        self.assertEqual(gw.checkout.sessions.retrieve(session["id"])["id"], session["id"])

    def test_recipients_and_a_split_charge(self):
        gw = gateway_for("split")
        seller = gw.recipients.create(
            {"name": "Ateliê da Ana", "document": "52998224725", "email": "ana@example.com",
             "pixKey": "ana@example.com", "pixKeyType": "EMAIL"}
        )
        self.assertRegex(seller["id"], UUID)
        self.assertEqual(gw.recipients.retrieve(seller["id"])["name"], "Ateliê da Ana")
        self.assertIn(seller["id"], [r["id"] for r in gw.recipients.list(limit=100)["data"]])
        sale = gw.transactions.create(sale_input(amount=20000, split=[{"recipientId": seller["id"], "percent": 70}]))
        self.assertEqual(sale["split"][0]["recipientId"], seller["id"])
        self.assertIsNone(sale["split"][-1]["recipientId"])
        before = gw.recipients.balance(seller["id"])["available"]
        gw.sandbox.pay(sale["uuid"])
        self.assertEqual(gw.recipients.balance(seller["id"])["available"] - before, sale["split"][0]["netCents"])
        paid_out = gw.recipients.cashout(seller["id"], {"amount": "100.00"}, idempotency_key="py-recipient-cashout")
        self.assertEqual((paid_out["recipientId"], paid_out["pixKey"]), (seller["id"], "ana@example.com"))
        again = gw.recipients.cashout(seller["id"], {"amount": "100.00"}, idempotency_key="py-recipient-cashout")
        self.assertEqual(again["uuid"], paid_out["uuid"])
        self.assertEqual(gw.recipients.balance(seller["id"])["blocked"], 10000)

    def test_customers_plans_and_a_pix_subscription(self):
        gw = gateway_for("subscriptions")
        customer = gw.customers.create({"name": "Ana Souza", "email": "ana@example.com", "document": "52998224725"})
        self.assertEqual(gw.customers.retrieve(customer["id"])["cards"], [])
        self.assertIn(customer["id"], [c["id"] for c in gw.customers.list(limit=100)["data"]])
        plan = gw.plans.create({"name": "Clube", "amountCents": 4990, "interval": "month", "methods": ["PIX"]})
        self.assertEqual(gw.plans.update(plan["id"], name="Clube do livro")["name"], "Clube do livro")
        # a PIX period is charged BOLETO_DAYS_BEFORE (5) days ahead of its start: one starting in ten days is not
        # yet due, so the running scheduler leaves its first charge to advance (one due now races it: 409)
        start = (datetime.now(timezone.utc) + timedelta(days=10)).date().isoformat()
        sub = gw.subscriptions.create(
            {"customerId": customer["id"], "planId": plan["id"], "paymentMethod": "PIX", "startDate": start}
        )
        self.assertEqual((sub["status"], sub["currentPeriodStart"]), ("incomplete", start))
        gw.sandbox.advance_subscription(sub["id"])
        [sale] = [s for s in gw.transactions.list(limit=100)["data"] if s.get("subscriptionId") == sub["id"]]
        self.assertEqual(sale["status"], "PENDENTE")
        gw.sandbox.pay(sale["uuid"])
        self.assertEqual(gw.sandbox.advance_subscription(sub["id"])["status"], "active")
        self.assertEqual(gw.subscriptions.list(customer_id=customer["id"])["data"][0]["id"], sub["id"])
        self.assertTrue(gw.subscriptions.cancel(sub["id"], at_period_end=True)["cancelAtPeriodEnd"])

    def test_a_decimal_amount(self):
        created = gateway_for("decimals").cashouts.create({"amount": Decimal("120.50"), "pixKey": "52998224725"})
        self.assertEqual(created["amount"], "120.50")


if __name__ == "__main__":
    unittest.main()
