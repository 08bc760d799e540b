"""The Python twin of examples/shop/server.ts: a small store that takes PIX payments through the gateway with
the Python SDK and the standard library's http.server. A checkout page opens a PIX charge and shows its QR code,
a webhook endpoint verifies each notification and updates the order, the order's page shows its status and a
button that refunds part of a paid order. Orders live in memory: this is an example, not a shop. The lines that
talk to the gateway sit between ``gateway:begin`` and ``gateway:end`` (test/examples/plumbing.test.ts counts
them); the rest is the shop.

    pip install ./sdk-python   # or PYTHONPATH=sdk-python, as npm run example:shop-python does
    GATEWAY_URL=http://localhost:3000 GATEWAY_PUBLIC_KEY=pk_… GATEWAY_PRIVATE_KEY=sk_… \\
    GATEWAY_WEBHOOK_SECRET=whsec_… python3 examples/shop-python/shop.py

Point a webhook (panel, Webhooks) or ``gateway listen --forward-to http://127.0.0.1:4244/webhooks`` at it.
"""

import html
import os
import re
import sys
import uuid
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any, Dict, Optional

# gateway:begin
from gateway_sdk import EventIdDeduplicator, Gateway, handle_webhook

# gateway:end

PRODUCT = {"item": "Camiseta do gateway", "cents": 4990}
BUYER = {"name": "Maria Silva", "email": "maria@example.com", "document": "52998224725", "phone": "5511987654321"}
REFUND_CENTS = 1000  # what a refund gives back: the gift wrap, say
orders: Dict[str, Dict[str, Any]] = {}


def log(line: str) -> None:
    print(line, flush=True)


def reais(cents: int) -> str:
    return f"R$ {cents // 100},{cents % 100:02d}"


def update(order: Dict[str, Any], status: Optional[str], refunded_cents: int) -> None:
    """The order as the gateway has its sale now (a status it does not name leaves the order's as it is)."""
    order["refunded_cents"] = refunded_cents
    if status:
        order["status"] = "partly refunded" if status == "paid" and refunded_cents > 0 else status
    log(f"order {order['id']}: {order['status']}")


# gateway:begin
gateway = Gateway.from_env()  # GATEWAY_URL, GATEWAY_PUBLIC_KEY, GATEWAY_PRIVATE_KEY
WEBHOOK_SECRET = os.environ["GATEWAY_WEBHOOK_SECRET"]
seen = EventIdDeduplicator()  # one process: with several, a unique column in your database
STATUS = {"PAGO": "paid", "ESTORNADO": "refunded", "CANCELADO": "cancelled"}


# called once per event id, verified; raising answers 500 and the gateway retries
def on_event(event: Any) -> None:
    if not (event.event_type or "").startswith("sale."):
        return
    order = orders.get(event.payload["metadata"].get("orderId", ""))
    if order:
        # the sale as it is now decides, not the notification: notifications may come late or out of order
        sale = gateway.transactions.retrieve(event.payload["uuid"])
        update(order, STATUS.get(sale["status"]), sale["refundedAmount"])


# gateway:end


def page(title: str, body: str) -> bytes:
    return f'<!doctype html><html lang="pt-BR"><meta charset="utf-8"><title>{title}</title><body><h1>{title}</h1>{body}</body></html>'.encode()


class Shop(BaseHTTPRequestHandler):
    def reply(self, status: int, body: bytes = b"", location: Optional[str] = None, kind: str = "text/html") -> None:
        self.send_response(status)
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        if location:
            self.send_header("Location", location)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path == "/":
            form = '<form method="post" action="/checkout"><button>Comprar com PIX</button></form>'
            self.reply(200, page("Loja de exemplo", f"<p>{html.escape(PRODUCT['item'])}: {reais(PRODUCT['cents'])}</p>{form}"))
        elif self.path.startswith("/orders/"):
            self.order_page(self.path[len("/orders/") :])
        else:
            self.reply(404)

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        refund_of = re.fullmatch(r"/orders/([^/]+)/refund", self.path)
        try:
            if self.path == "/webhooks":
                # gateway:begin
                status, text = handle_webhook(
                    body=body, headers=self.headers, secret=WEBHOOK_SECRET, on_event=on_event, deduplicator=seen
                )
                # gateway:end
                self.reply(status, text.encode(), kind="text/plain")
            elif self.path == "/checkout":
                self.checkout()
            elif refund_of:
                self.refund(refund_of.group(1))
            else:
                self.reply(404)
        except Exception as err:  # noqa: BLE001 - the buyer sees a page, the log the reason
            print(f"{type(err).__name__}: {err}", file=sys.stderr, flush=True)
            self.reply(502, b"payment gateway error", kind="text/plain")

    def checkout(self) -> None:
        order: Dict[str, Any] = {"id": str(uuid.uuid4()), **PRODUCT, "status": "awaiting payment", "refunded_cents": 0}
        # gateway:begin
        charge = gateway.transactions.create(
            {
                "amount": order["cents"],
                "paymentMethod": "PIX",
                "metadata": {"orderId": order["id"]},
                "customer": BUYER,
                "items": [{"title": order["item"], "unitPrice": order["cents"], "quantity": 1, "tangible": True}],
            },
            idempotency_key=f"order-{order['id']}",  # a checkout sent twice opens one charge
        )
        order.update(sale_uuid=charge["uuid"], pix_code=charge["pixKey"], qr_image=charge.get("pixQrCode"))
        # gateway:end
        orders[order["id"]] = order
        # in the sandbox no bank pays it: this is how to, as the buyer's bank would
        sale = order["sale_uuid"]
        log(f"order {order['id']}: charge {sale} awaiting payment (sandbox: npx gateway trigger sale.paid --sale {sale})")
        self.reply(303, location=f"/orders/{order['id']}")

    def refund(self, order_id: str) -> None:
        order = orders.get(order_id)
        if not order or order["status"] != "paid":
            self.reply(409, b"only a paid order is refunded", kind="text/plain")
            return
        # the order changes when sale.refunded arrives
        # gateway:begin
        key = f"refund-{order['id']}"  # one refund per order, however often the button is pressed
        gateway.transactions.refund(order["sale_uuid"], amount_cents=REFUND_CENTS, idempotency_key=key)
        # gateway:end
        log(f"order {order['id']}: {reais(REFUND_CENTS)} refund asked")
        self.reply(303, location=f"/orders/{order['id']}")

    def order_page(self, order_id: str) -> None:
        order = orders.get(order_id)
        if not order:
            self.reply(404, page("Pedido não encontrado", ""))
            return
        parts = [f"<p>{html.escape(order['item'])}: {reais(order['cents'])}</p>"]
        parts.append(f'<p>Situação: <strong id="status">{order["status"]}</strong></p>')
        if order["refunded_cents"]:
            parts.append(f'<p>Devolvido: <span id="refunded">{reais(order["refunded_cents"])}</span></p>')
        if order["status"] == "awaiting payment" and order.get("qr_image"):
            parts.append(f'<p>Pague com PIX:</p><img id="qr" alt="QR code PIX" width="240" height="240" src="{html.escape(order["qr_image"])}">')
            parts.append(f"<p>Copia e cola: <code>{html.escape(order['pix_code'] or '')}</code></p>")
            parts.append(f"<p><small>No sandbox, pague com <code>npx gateway trigger sale.paid --sale {order['sale_uuid']}</code></small></p>")
        if order["status"] == "paid":
            parts.append(f'<form method="post" action="/orders/{order["id"]}/refund"><button>Devolver {reais(REFUND_CENTS)}</button></form>')
        self.reply(200, page(f"Pedido {order['id'][:8]}", "".join(parts)))

    def log_message(self, format: str, *args: Any) -> None:
        pass  # no access log


if __name__ == "__main__":
    port = int(os.environ.get("SHOP_PORT", "4244"))
    server = HTTPServer(("127.0.0.1", port), Shop)
    log(f"shop on http://127.0.0.1:{port}")
    server.serve_forever()
