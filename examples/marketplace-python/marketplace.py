"""The Python twin of examples/marketplace/main.ts: a marketplace on the gateway, from its own code with the
Python SDK. A seller signed up as a recipient, a card sale in three installments of which 70 % is the seller's, a
partial refund that says who paid for it, a monthly course fee shared the same way, and the seller's cashout to
its PIX key, completed by the sandbox's payout provider. The lines that talk to the gateway sit between
``gateway:begin`` and ``gateway:end`` (test/examples/plumbing.test.ts counts them); the rest is the
marketplace's own data and its printing.

    pip install ./sdk-python   # or PYTHONPATH=sdk-python, as npm run example:marketplace-python does
    GATEWAY_URL=http://localhost:3000 GATEWAY_PUBLIC_KEY=pk_… GATEWAY_PRIVATE_KEY=sk_… \\
    python3 examples/marketplace-python/marketplace.py
"""

import time
from datetime import datetime, timedelta, timezone

# gateway:begin
from gateway_sdk import Gateway

# gateway:end

SELLER = {"name": "Ateliê da Ana", "document": "52998224725", "email": "ana@example.com",
          "pixKey": "ana@example.com", "pixKeyType": "EMAIL"}
BUYER = {"name": "Maria Silva", "email": "maria@example.com", "document": "39053344705", "phone": "5511987654321"}
# in a shop the buyer's browser turns the card into a token with the public key alone; here the script does
CARD = {"number": "4111 1111 1111 1111", "holderName": "MARIA SILVA", "expMonth": 12, "expYear": 2030, "cvv": "123"}
VASE = {"title": "Vaso de cerâmica", "unitPrice": 30000, "quantity": 1, "tangible": True}
VASE_SALE = {"amount": 30000, "paymentMethod": "CREDIT_CARD", "installments": 3, "customer": BUYER, "items": [VASE]}
STUDENT = {"name": "João Lima", "email": "joao@example.com", "document": "11144477735"}
COURSE = {"name": "Curso de cerâmica", "amountCents": 19900, "interval": "month", "methods": ["PIX"]}
REFUND_CENTS = 6000  # a refund of the gift wrap: 60 of the vase's 300 reais
# the course starts in ten days (São Paulo): its PIX charge is due five days before (BOLETO_DAYS_BEFORE), not yet
IN_TEN_DAYS = (datetime.now(timezone(timedelta(hours=-3))) + timedelta(days=10)).date().isoformat()


def reais(cents: int) -> str:
    return f"R$ {cents // 100},{cents % 100:02d}"


def check(ok: bool, what: str) -> None:
    if not ok:
        raise SystemExit(what)


# gateway:begin
gateway = Gateway.from_env()  # GATEWAY_URL, GATEWAY_PUBLIC_KEY, GATEWAY_PRIVATE_KEY
seller = gateway.recipients.create(SELLER)
token = gateway.cards.tokenize(CARD)["token"]
# the seller answers for refunds and disputes of its share (liable); the platform keeps 30 % and pays the fee
split = [{"recipientId": seller["id"], "percent": 70, "liable": True}]
vase = gateway.transactions.create({**VASE_SALE, "card": {"token": token}, "split": split})
gateway.transactions.refund(vase["uuid"], amount_cents=REFUND_CENTS, idempotency_key=f"gift-wrap-{vase['uuid']}")
refund = gateway.refunds.list(vase["uuid"])[0]
# gateway:end
print(f"seller {seller['id']} ({seller['name']}); card sale {vase['uuid']}: {vase['status']}, 3 installments")
for part in refund["allocation"]:
    who = "platform" if part["party"] == "platform" else f"seller {part['party']}"
    print(f"refund {reais(REFUND_CENTS)}: {who} paid {reais(part['amountCents'])} "
          f"({reais(part['fromReceivableCents'])} from the sale's installments, "
          f"{reais(part['fromAvailableCents'])} from available)")
print(f"refund {reais(REFUND_CENTS)}: the gateway gave back {reais(refund['feeReturnedCents'])} of its fee")
check(any(p["party"] == seller["id"] and p["fromReceivableCents"] > 0 for p in refund["allocation"]),
      "the seller paid nothing")

# gateway:begin
student = gateway.customers.create(STUDENT)
course = gateway.plans.create(COURSE)
monthly = gateway.subscriptions.create({"customerId": student["id"], "planId": course["id"], "paymentMethod": "PIX",
                                        "startDate": IN_TEN_DAYS, "split": [{"recipientId": seller["id"], "percent": 70}]})
# the sandbox makes the first month's charge now (the scheduler would in five days, and e-mail it to the student); pay it
gateway.sandbox.advance_subscription(monthly["id"])
month = next(s for s in gateway.transactions.list(limit=20)["data"] if s.get("subscriptionId") == monthly["id"])
gateway.sandbox.pay(month["uuid"])
available = gateway.recipients.balance(seller["id"])["available"]
payout = gateway.recipients.cashout(seller["id"], {"amountCents": available})  # to the seller's own key
# the sandbox's payout provider takes it within 2 s (PENDING → PROCESSING), then pays it
while gateway.cashouts.retrieve(payout["uuid"])["status"] == "PENDING":
    time.sleep(0.2)
paid = gateway.sandbox.complete_withdrawal(payout["uuid"])
# gateway:end
share = next((p["netCents"] for p in month.get("split") or [] if p.get("recipientId") == seller["id"]), 0)
print(f"subscription {monthly['id']}: the seller gets {reais(share)} of each month")
check(share == 13930, "the seller did not get 70 % of the month")
print(f"seller withdrawal {paid['uuid']}: {paid['status']}, {reais(available)} to {payout['pixKey']}")
check(paid["status"] == "COMPLETED", "the seller was not paid")
