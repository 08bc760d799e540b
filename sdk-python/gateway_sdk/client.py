"""The client of one merchant account (one API key pair): the TypeScript SDK's Gateway, in snake_case."""

import os
from datetime import datetime, timezone
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Union, cast
from urllib.parse import quote, urlencode

from . import types
from ._http import HttpClient

Id = Union[str, int]
Instant = Union[str, datetime]


def _segment(id: Id) -> str:
    """A path segment, escaped as encodeURIComponent escapes it."""
    return quote(str(id), safe="!'()*")


def _instant(value: Instant) -> str:
    """A datetime as Date.toISOString writes it (UTC, milliseconds, Z; a naive one is local time); a string as is."""
    if isinstance(value, str):
        return value
    utc = value.astimezone(timezone.utc)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def _query(
    type: Union[str, Sequence[str], None] = None,
    since: Optional[Instant] = None,
    until: Optional[Instant] = None,
    limit: Optional[int] = None,
    cursor: Optional[str] = None,
) -> str:
    q: Dict[str, str] = {}
    if type is not None:
        q["type"] = type if isinstance(type, str) else ",".join(type)
    if since is not None:
        q["since"] = _instant(since)
    if until is not None:
        q["until"] = _instant(until)
    if limit is not None:
        q["limit"] = str(limit)
    if cursor is not None:
        q["cursor"] = cursor
    return f"?{urlencode(q)}" if q else ""


class BalanceResource:
    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def retrieve(self) -> types.Balance:
        """GET /api/public/balance"""
        return cast(types.Balance, self._http.request("GET", "/api/public/balance"))


class CashoutsResource:
    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def create(self, body: types.CashoutCreate, *, idempotency_key: Optional[str] = None) -> types.CashoutCreated:
        """POST /api/public/cashout; an Idempotency-Key is generated when none is given and kept across retries."""
        key = idempotency_key if idempotency_key is not None else HttpClient.new_key()
        return cast(types.CashoutCreated, self._http.request("POST", "/api/public/cashout", body, key))

    def retrieve(self, id: Id) -> types.Withdrawal:
        """GET /api/public/cashout/{id} (uuid or numeric id)"""
        return cast(types.Withdrawal, self._http.request("GET", f"/api/public/cashout/{_segment(id)}"))


class TransactionsResource:
    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def create(self, body: types.ChargeCreate, *, idempotency_key: Optional[str] = None) -> types.Charge:
        """POST /api/transactions (a PIX charge); an Idempotency-Key is generated when none is given."""
        key = idempotency_key if idempotency_key is not None else HttpClient.new_key()
        return cast(types.Charge, self._http.request("POST", "/api/transactions", body, key))

    def retrieve(self, id: Id) -> types.Sale:
        """GET /api/transactions/{id}"""
        return cast(types.Sale, self._http.request("GET", f"/api/transactions/{_segment(id)}"))

    def refund(
        self, id: Id, *, amount_cents: Optional[int] = None, idempotency_key: Optional[str] = None
    ) -> types.RefundAccepted:
        """POST /api/transactions/{id}/refund: all that is left, or amount_cents of it. An Idempotency-Key is
        generated when none is given and kept across retries: a retry never makes a second refund."""
        key = idempotency_key if idempotency_key is not None else HttpClient.new_key()
        body = {} if amount_cents is None else {"amountCents": amount_cents}
        return cast(
            types.RefundAccepted,
            self._http.request("POST", f"/api/transactions/{_segment(id)}/refund", body, key),
        )

    def list(
        self,
        *,
        status: Optional[str] = None,
        payment_method: Optional[str] = None,
        from_: Optional[str] = None,
        to: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> Dict[str, Any]:
        """GET /api/transactions: one page of the account's sales, newest first ({"data": [...], "nextCursor"})."""
        q: Dict[str, str] = {}
        for name, value in (
            ("status", status),
            ("paymentMethod", payment_method),
            ("from", from_),
            ("to", to),
            ("limit", None if limit is None else str(limit)),
            ("cursor", cursor),
        ):
            if value is not None:
                q[name] = value
        return cast(Dict[str, Any], self._http.request("GET", f"/api/transactions{'?' + urlencode(q) if q else ''}"))

    def iterate(
        self,
        *,
        status: Optional[str] = None,
        payment_method: Optional[str] = None,
        from_: Optional[str] = None,
        to: Optional[str] = None,
        limit: Optional[int] = None,
    ) -> Iterator[types.Sale]:
        """Every sale of every page, newest first (a page is fetched when the previous one is used up)."""
        cursor: Optional[str] = None
        while True:
            page = self.list(
                status=status, payment_method=payment_method, from_=from_, to=to, limit=limit, cursor=cursor
            )
            yield from page["data"]
            cursor = page.get("nextCursor") or None
            if not cursor:
                return

    def cancel(self, id: Id) -> types.Sale:
        """POST /api/transactions/{id}/cancel: a PENDENTE PIX or BOLETO sale becomes CANCELADO (else 409)."""
        return cast(types.Sale, self._http.request("POST", f"/api/transactions/{_segment(id)}/cancel", {}))

    def refunds(self, id: Id) -> List[Dict[str, Any]]:
        """GET /api/transactions/{id}/refunds: the sale's refunds, oldest first."""
        return cast(List[Dict[str, Any]], self._http.request("GET", f"/api/transactions/{_segment(id)}/refunds"))

    def capture(self, id: Id, *, amount_cents: Optional[int] = None) -> types.Captured:
        """POST /api/transactions/{id}/capture: an authorized card sale captured in full, or amount_cents of it
        (not retried: the route takes no Idempotency-Key; a repeat of a made capture answers 409)."""
        body = {} if amount_cents is None else {"amountCents": amount_cents}
        return cast(types.Captured, self._http.request("POST", f"/api/transactions/{_segment(id)}/capture", body))


class ReceivablesResource:
    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def list(self, *, from_: Optional[str] = None, to: Optional[str] = None) -> types.ReceivablesPage:
        """GET /api/receivables: card installments by the date they reach available (YYYY-MM-DD; today and 90
        days on by default)."""
        q = urlencode({k: v for k, v in (("from", from_), ("to", to)) if v is not None})
        return cast(types.ReceivablesPage, self._http.request("GET", f"/api/receivables{'?' + q if q else ''}"))


class PaymentLinksResource:
    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def create(self, body: types.PaymentLinkCreate) -> types.PaymentLink:
        """POST /api/payment-links (not retried: the route takes no Idempotency-Key)"""
        return cast(types.PaymentLink, self._http.request("POST", "/api/payment-links", body))

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> types.PaymentLinkPage:
        """GET /api/payment-links: a page, newest first."""
        q = urlencode({k: v for k, v in (("limit", limit), ("cursor", cursor)) if v is not None})
        return cast(types.PaymentLinkPage, self._http.request("GET", f"/api/payment-links{'?' + q if q else ''}"))

    def retrieve(self, id: str) -> types.PaymentLink:
        """GET /api/payment-links/{id}"""
        return cast(types.PaymentLink, self._http.request("GET", f"/api/payment-links/{_segment(id)}"))

    def update(self, id: str, body: types.PaymentLinkUpdate) -> types.PaymentLink:
        """PATCH /api/payment-links/{id} ({"active": False} turns the link off)"""
        return cast(types.PaymentLink, self._http.request("PATCH", f"/api/payment-links/{_segment(id)}", body))


class CheckoutSessionsResource:
    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def create(self, body: types.CheckoutSessionCreate) -> types.CheckoutSession:
        """POST /api/checkout/sessions (not retried: the route takes no Idempotency-Key)"""
        return cast(types.CheckoutSession, self._http.request("POST", "/api/checkout/sessions", body))

    def retrieve(self, id: str) -> types.CheckoutSession:
        """GET /api/checkout/sessions/{id}"""
        return cast(types.CheckoutSession, self._http.request("GET", f"/api/checkout/sessions/{_segment(id)}"))


class RecipientsResource:
    """Split payments: the recipients of this (platform) account, each with a balance of its own."""

    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def create(self, body: types.RecipientCreate) -> types.Recipient:
        """POST /api/recipients {name, document, email, pixKey, pixKeyType, transferInterval?}"""
        return cast(types.Recipient, self._http.request("POST", "/api/recipients", body))

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> types.RecipientPage:
        """GET /api/recipients: a page, newest first."""
        q = urlencode({k: v for k, v in (("limit", limit), ("cursor", cursor)) if v is not None})
        return cast(types.RecipientPage, self._http.request("GET", f"/api/recipients{'?' + q if q else ''}"))

    def retrieve(self, id: str) -> types.Recipient:
        """GET /api/recipients/{id} (another account's is not found)"""
        return cast(types.Recipient, self._http.request("GET", f"/api/recipients/{_segment(id)}"))

    def update(self, id: str, body: Dict[str, Any]) -> types.Recipient:
        """PATCH /api/recipients/{id} {name?, email?, pixKey?, pixKeyType?, transferInterval?, active?}: only the
        fields given change (never the document); active=False stops new splits naming it, its money goes on."""
        return cast(types.Recipient, self._http.request("PATCH", f"/api/recipients/{_segment(id)}", body))

    def balance(self, id: str) -> types.RecipientBalance:
        """GET /api/recipients/{id}/balance: available, blocked, receivable and total, in cents."""
        return cast(types.RecipientBalance, self._http.request("GET", f"/api/recipients/{_segment(id)}/balance"))

    def receivables(self, id: str, *, from_: Optional[str] = None, to: Optional[str] = None) -> Dict[str, Any]:
        """GET /api/recipients/{id}/receivables: {data: [{date, amountCents, saleId, installment}], totalCents}."""
        path = f"/api/recipients/{_segment(id)}/receivables{_params(**{'from': from_, 'to': to})}"
        return cast(Dict[str, Any], self._http.request("GET", path))

    def withdrawals(self, id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Dict[str, Any]:
        """GET /api/recipients/{id}/withdrawals: its Withdrawal objects, newest first (cursor pages)."""
        path = f"/api/recipients/{_segment(id)}/withdrawals{_params(limit=limit, cursor=cursor)}"
        return cast(Dict[str, Any], self._http.request("GET", path))

    def statement(
        self,
        id: str,
        *,
        from_: Optional[str] = None,
        to: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> Dict[str, Any]:
        """GET /api/recipients/{id}/statement: its ledger lines, newest first, with its balances after each."""
        query = _params(**{"from": from_, "to": to, "limit": limit, "cursor": cursor})
        return cast(Dict[str, Any], self._http.request("GET", f"/api/recipients/{_segment(id)}/statement{query}"))

    def cashout(
        self, id: str, body: types.RecipientCashoutCreate, *, idempotency_key: Optional[str] = None
    ) -> types.CashoutCreated:
        """POST /api/recipients/{id}/cashout: pays out the recipient's available balance (the PIX key defaults to
        the recipient's own); an Idempotency-Key is generated when none is given and kept across retries."""
        key = idempotency_key if idempotency_key is not None else HttpClient.new_key()
        return cast(
            types.CashoutCreated, self._http.request("POST", f"/api/recipients/{_segment(id)}/cashout", body, key)
        )


def _params(**params: Any) -> str:
    q = urlencode({k: v for k, v in params.items() if v is not None})
    return f"?{q}" if q else ""


class CustomersResource:
    """Customers and the cards saved on file for them (charged later with card={"cardId": ...})."""

    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def create(self, body: types.CustomerCreate) -> types.Customer:
        """POST /api/customers {name, email, document, phone?}"""
        return cast(types.Customer, self._http.request("POST", "/api/customers", body))

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> types.CustomerPage:
        """GET /api/customers: a page, newest first."""
        return cast(types.CustomerPage, self._http.request("GET", f"/api/customers{_params(limit=limit, cursor=cursor)}"))

    def retrieve(self, id: str) -> types.Customer:
        """GET /api/customers/{id}, with its saved cards."""
        return cast(types.Customer, self._http.request("GET", f"/api/customers/{_segment(id)}"))

    def save_card(self, id: str, token: str) -> types.SavedCard:
        """POST /api/customers/{id}/cards {token}: a card on file from a one-time card token."""
        return cast(types.SavedCard, self._http.request("POST", f"/api/customers/{_segment(id)}/cards", {"token": token}))

    def delete_card(self, id: str, card_id: str) -> None:
        """DELETE /api/customers/{id}/cards/{cardId}: the card charges nothing any more."""
        self._http.request("DELETE", f"/api/customers/{_segment(id)}/cards/{_segment(card_id)}")


class PlansResource:
    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def create(self, body: types.PlanCreate) -> types.Plan:
        """POST /api/plans {name, amountCents, interval, intervalCount?, trialDays?, methods}"""
        return cast(types.Plan, self._http.request("POST", "/api/plans", body))

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> types.PlanPage:
        """GET /api/plans: a page, newest first."""
        return cast(types.PlanPage, self._http.request("GET", f"/api/plans{_params(limit=limit, cursor=cursor)}"))

    def retrieve(self, id: str) -> types.Plan:
        """GET /api/plans/{id}"""
        return cast(types.Plan, self._http.request("GET", f"/api/plans/{_segment(id)}"))

    def update(self, id: str, *, name: Optional[str] = None, active: Optional[bool] = None) -> types.Plan:
        """PATCH /api/plans/{id}: rename or (de)activate; the amount never changes."""
        body = {k: v for k, v in (("name", name), ("active", active)) if v is not None}
        return cast(types.Plan, self._http.request("PATCH", f"/api/plans/{_segment(id)}", body))


class SubscriptionsResource:
    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def create(self, body: types.SubscriptionCreate) -> types.Subscription:
        """POST /api/subscriptions {customerId, planId, paymentMethod, cardId?, startDate?, address?, idRec?}"""
        return cast(types.Subscription, self._http.request("POST", "/api/subscriptions", body))

    def list(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        customer_id: Optional[str] = None,
        status: Optional[str] = None,
    ) -> types.SubscriptionPage:
        """GET /api/subscriptions: a page, newest first (by customer or status)."""
        q = _params(limit=limit, cursor=cursor, customerId=customer_id, status=status)
        return cast(types.SubscriptionPage, self._http.request("GET", f"/api/subscriptions{q}"))

    def retrieve(self, id: str) -> types.Subscription:
        """GET /api/subscriptions/{id}"""
        return cast(types.Subscription, self._http.request("GET", f"/api/subscriptions/{_segment(id)}"))

    def update(self, id: str, *, plan_id: Optional[str] = None, card_id: Optional[str] = None) -> types.Subscription:
        """PATCH /api/subscriptions/{id}: another plan from the next period on, or another saved card now."""
        body = {k: v for k, v in (("planId", plan_id), ("cardId", card_id)) if v is not None}
        return cast(types.Subscription, self._http.request("PATCH", f"/api/subscriptions/{_segment(id)}", body))

    def cancel(self, id: str, *, at_period_end: bool = False) -> types.Subscription:
        """POST /api/subscriptions/{id}/cancel: now, or when the current period ends."""
        return cast(
            types.Subscription,
            self._http.request("POST", f"/api/subscriptions/{_segment(id)}/cancel", {"atPeriodEnd": at_period_end}),
        )


class CheckoutResource:
    def __init__(self, http: HttpClient) -> None:
        self.sessions = CheckoutSessionsResource(http)


class DisputesResource:
    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def list(
        self,
        *,
        status: Optional[types.DisputeStatus] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> types.DisputePage:
        """GET /api/disputes: a page, newest first."""
        q = urlencode({k: v for k, v in (("status", status), ("limit", limit), ("cursor", cursor)) if v is not None})
        return cast(types.DisputePage, self._http.request("GET", f"/api/disputes{'?' + q if q else ''}"))

    def retrieve(self, id: str) -> types.Dispute:
        """GET /api/disputes/{id}"""
        return cast(types.Dispute, self._http.request("GET", f"/api/disputes/{_segment(id)}"))

    def accept(self, id: str) -> types.Dispute:
        """POST /api/disputes/{id}/accept: give up the disputed amount."""
        return cast(types.Dispute, self._http.request("POST", f"/api/disputes/{_segment(id)}/accept"))


class EventsResource:
    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def list(
        self,
        *,
        type: Union[str, Sequence[str], None] = None,
        since: Optional[Instant] = None,
        until: Optional[Instant] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> types.EventPage:
        """GET /api/events: a page, newest first. ``type`` is one event name or several."""
        path = f"/api/events{_query(type, since, until, limit, cursor)}"
        return cast(types.EventPage, self._http.request("GET", path))

    def iterate(
        self,
        *,
        type: Union[str, Sequence[str], None] = None,
        since: Optional[Instant] = None,
        until: Optional[Instant] = None,
        limit: Optional[int] = None,
    ) -> Iterator[types.Event]:
        """Every event of every page, newest first (a page is fetched when the previous one is used up)."""
        cursor: Optional[str] = None
        while True:
            page = self.list(type=type, since=since, until=until, limit=limit, cursor=cursor)
            yield from page["data"]
            cursor = page.get("nextCursor") or None
            if not cursor:
                return

    def retrieve(self, id: str) -> types.Event:
        """GET /api/events/{id}"""
        return cast(types.Event, self._http.request("GET", f"/api/events/{_segment(id)}"))


class RefundsResource:
    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def list(self, sale_id: Id) -> List[Dict[str, Any]]:
        """GET /api/transactions/{id}/refunds: a sale's refunds, oldest first (the same as transactions.refunds)."""
        return cast(List[Dict[str, Any]], self._http.request("GET", f"/api/transactions/{_segment(sale_id)}/refunds"))


class WebhooksResource:
    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def create(self, body: Dict[str, Any]) -> Dict[str, Any]:
        """POST /api/webhook (a full-scope key) {webhookUrl, events}: the answer carries the whsec_ secret, once."""
        return cast(Dict[str, Any], self._http.request("POST", "/api/webhook", body))

    def list(self) -> List[Dict[str, Any]]:
        """GET /api/webhook"""
        return cast(List[Dict[str, Any]], self._http.request("GET", "/api/webhook"))

    def delete(self, id: int) -> None:
        """DELETE /api/webhook/{id}"""
        self._http.request("DELETE", f"/api/webhook/{_segment(id)}")


class SandboxResource:
    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def pay(self, id: Id) -> types.Sale:
        """POST /api/sandbox/sales/{id}/status {"status": "PAGO"}: pays a test charge as the processor's callback
        would (sandbox only), so its webhooks are sent as for a real payment."""
        return cast(types.Sale, self._http.request("POST", f"/api/sandbox/sales/{_segment(id)}/status", {"status": "PAGO"}))

    def advance_subscription(self, id: str) -> types.Subscription:
        """POST /api/sandbox/subscriptions/{id}/advance: the next charge (or retry) made now, as the scheduler would."""
        return cast(types.Subscription, self._http.request("POST", f"/api/sandbox/subscriptions/{_segment(id)}/advance"))


class Gateway:
    """A client of one merchant account (one API key pair).

    ``timeout_ms`` bounds each attempt's connecting and each wait for data (default 30000); ``max_retries`` the
    retries after the first attempt of 429, 502, 503, 504 and network failures (default 2). Reads and POSTs
    with an Idempotency-Key are retried; the create methods generate one when none is given and send the same
    one on every attempt.
    """

    def __init__(
        self,
        *,
        base_url: str,
        public_key: str,
        private_key: str,
        timeout_ms: float = 30_000,
        max_retries: int = 2,
    ) -> None:
        http = HttpClient(base_url, public_key, private_key, timeout_ms=timeout_ms, max_retries=max_retries)
        self.balance = BalanceResource(http)
        self.cashouts = CashoutsResource(http)
        self.transactions = TransactionsResource(http)
        self.events = EventsResource(http)
        self.payment_links = PaymentLinksResource(http)
        self.checkout = CheckoutResource(http)
        self.disputes = DisputesResource(http)
        self.recipients = RecipientsResource(http)
        self.receivables = ReceivablesResource(http)
        self.webhooks = WebhooksResource(http)
        self.refunds = RefundsResource(http)
        self.customers = CustomersResource(http)
        self.plans = PlansResource(http)
        self.subscriptions = SubscriptionsResource(http)
        self.sandbox = SandboxResource(http)

    @classmethod
    def from_env(cls, environ: Optional[Mapping[str, str]] = None, **options: Any) -> "Gateway":
        """A client from the environment: GATEWAY_URL, GATEWAY_PUBLIC_KEY and GATEWAY_PRIVATE_KEY (the names the
        quickstart and ``gateway keys create --env`` use); raises KeyError naming the first one unset.
        ``options`` (timeout_ms, max_retries) go to the constructor."""
        env = os.environ if environ is None else environ

        def read(name: str) -> str:
            value = env.get(name)
            if not value:
                raise KeyError(f"{name} is not set")
            return value

        return cls(
            base_url=read("GATEWAY_URL"),
            public_key=read("GATEWAY_PUBLIC_KEY"),
            private_key=read("GATEWAY_PRIVATE_KEY"),
            **options,
        )

    def __repr__(self) -> str:
        return f"Gateway(base_url={self.balance._http.base_url!r})"


__all__ = [
    "Gateway",
    "BalanceResource",
    "CashoutsResource",
    "TransactionsResource",
    "EventsResource",
    "PaymentLinksResource",
    "CheckoutResource",
    "CheckoutSessionsResource",
    "ReceivablesResource",
    "RefundsResource",
    "SandboxResource",
    "WebhooksResource",
]
