"""The client of one merchant account (one API key pair): the TypeScript SDK's Gateway, in snake_case."""

import os
import uuid
from datetime import datetime, timezone
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union, cast
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


def cashout_body(body: Dict[str, Any]) -> Dict[str, Any]:
    """A cashout body as the contract takes it: ``amountCents`` (an int) becomes ``amount``, its reais string
    ("150.00"), so that no caller sends 15000 meaning R$ 150,00; a body with ``amount`` goes as it is."""
    if "amountCents" not in body:
        return body
    rest = {k: v for k, v in body.items() if k != "amountCents"}
    cents = body["amountCents"]
    if "amount" in rest:
        raise ValueError("give amount (reais) or amountCents, not both")
    if isinstance(cents, bool) or not isinstance(cents, int) or cents < 0:
        raise ValueError(f"amountCents must be a whole number of cents, not {cents!r}")
    return {**rest, "amount": f"{cents // 100}.{cents % 100:02d}"}


def _multipart(text: Optional[str], files: Sequence[Tuple[str, bytes]]) -> Tuple[bytes, str]:
    """A multipart/form-data body of files (each "files", with its name) and an optional text field."""
    boundary = f"gateway-sdk-{uuid.uuid4().hex}"
    parts: List[bytes] = []
    for name, content in files:
        quoted = name.replace("\\", "\\\\").replace('"', '\\"')
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="{quoted}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n".encode("utf-8")
            + content
            + b"\r\n"
        )
    if text is not None:
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="text"\r\n\r\n{text}\r\n'.encode("utf-8")
        )
    parts.append(f"--{boundary}--\r\n".encode("utf-8"))
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


class BalanceResource:
    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def retrieve(self) -> types.Balance:
        """GET /api/public/balance"""
        return cast(types.Balance, self._http.request("GET", "/api/public/balance"))


class CashoutsResource:
    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def create(self, body: Dict[str, Any], *, idempotency_key: Optional[str] = None) -> types.CashoutCreated:
        """POST /api/public/cashout {amount (reais, "150.00") or amountCents (15000), pixKey, pixKeyType?}; an
        Idempotency-Key is generated when none is given and kept across retries."""
        key = idempotency_key if idempotency_key is not None else HttpClient.new_key()
        return cast(types.CashoutCreated, self._http.request("POST", "/api/public/cashout", cashout_body(body), key))

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
        """POST /api/transactions/{id}/cancel: a PENDENTE PIX or BOLETO sale, or a card sale only authorized (EM_PROCESSAMENTO, voided), becomes CANCELADO (else 409)."""
        return cast(types.Sale, self._http.request("POST", f"/api/transactions/{_segment(id)}/cancel", {}))

    def refunds(self, id: Id) -> List[Dict[str, Any]]:
        """GET /api/transactions/{id}/refunds: the sale's refunds, oldest first."""
        return cast(List[Dict[str, Any]], self._http.request("GET", f"/api/transactions/{_segment(id)}/refunds"))

    def capture(self, id: Id, *, amount_cents: Optional[int] = None) -> types.Captured:
        """POST /api/transactions/{id}/capture: an authorized card sale captured in full, or amount_cents of it
        (not retried: the route takes no Idempotency-Key; a repeat of a made capture answers 409)."""
        body = {} if amount_cents is None else {"amountCents": amount_cents}
        return cast(types.Captured, self._http.request("POST", f"/api/transactions/{_segment(id)}/capture", body))

    def boleto_pdf(self, id: Id) -> bytes:
        """GET /api/transactions/{id}/boleto.pdf: a BOLETO sale's slip, its PDF bytes."""
        path = f"/api/transactions/{_segment(id)}/boleto.pdf"
        return cast(bytes, self._http.request("GET", path, accept="application/pdf", raw=True))


class FeesResource:
    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def retrieve(self) -> Dict[str, Any]:
        """GET /api/fees: the account's rates (its fee plan's, or its own)."""
        return cast(Dict[str, Any], self._http.request("GET", "/api/fees"))


class CardsResource:
    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def tokenize(self, body: Dict[str, Any]) -> Dict[str, Any]:
        """POST /api/cards/tokens {number, holderName, expMonth, expYear, cvv}: a one-time token of a card (for a
        charge's card.token or customers.save_card); usually made in the payer's browser with the public key."""
        return cast(Dict[str, Any], self._http.request("POST", "/api/cards/tokens", body))


class AnticipationsResource:
    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def simulate(self, *, amount_cents: Optional[int] = None, up_to: Optional[str] = None) -> Dict[str, Any]:
        """POST /api/anticipations/simulate: what anticipating amount_cents (or every receivable up to up_to)
        would pay."""
        body = {k: v for k, v in (("amountCents", amount_cents), ("upTo", up_to)) if v is not None}
        return cast(Dict[str, Any], self._http.request("POST", "/api/anticipations/simulate", body))

    def create(
        self,
        *,
        amount_cents: Optional[int] = None,
        up_to: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> Dict[str, Any]:
        """POST /api/anticipations: asks for the anticipation (an operator approves it); an Idempotency-Key is
        generated when none is given and kept across retries."""
        body = {k: v for k, v in (("amountCents", amount_cents), ("upTo", up_to)) if v is not None}
        key = idempotency_key if idempotency_key is not None else HttpClient.new_key()
        return cast(Dict[str, Any], self._http.request("POST", "/api/anticipations", body, key))

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Dict[str, Any]:
        """GET /api/anticipations: a page, newest first."""
        return cast(Dict[str, Any], self._http.request("GET", f"/api/anticipations{_params(limit=limit, cursor=cursor)}"))


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
        self, id: str, body: Dict[str, Any], *, idempotency_key: Optional[str] = None
    ) -> types.CashoutCreated:
        """POST /api/recipients/{id}/cashout {amount (reais) or amountCents, pixKey?, pixKeyType?}: pays out the
        recipient's available balance (the PIX key defaults to the recipient's own); an Idempotency-Key is
        generated when none is given and kept across retries."""
        key = idempotency_key if idempotency_key is not None else HttpClient.new_key()
        path = f"/api/recipients/{_segment(id)}/cashout"
        return cast(types.CashoutCreated, self._http.request("POST", path, cashout_body(body), key))


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

    def respond(
        self, id: str, *, text: Optional[str] = None, files: Sequence[Tuple[str, bytes]] = ()
    ) -> types.Dispute:
        """POST /api/disputes/{id}/evidence (multipart/form-data): up to 10 files, each (name, bytes) of a PDF,
        PNG or JPEG of 5 MB at most, and a text of up to 5,000 characters; the dispute goes under_review."""
        body, content_type = _multipart(text, files)
        path = f"/api/disputes/{_segment(id)}/evidence"
        return cast(types.Dispute, self._http.request("POST", path, body, content_type=content_type))


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

    def stream(
        self, *, type: Union[str, Sequence[str], None] = None, last_event_id: Optional[str] = None
    ) -> Any:
        """GET /api/events/stream: the account's events as they happen (Server-Sent Events); the open answer, its
        lines read as they come (close it to stop). ``last_event_id`` (the ``id:`` of the last event read, sent as
        Last-Event-ID) resumes a stream that dropped: the events after it come first, then the live ones."""
        return self._http.stream(f"/api/events/stream{_query(type)}", last_event_id)


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

    def update(
        self,
        id: int,
        *,
        webhook_url: Optional[str] = None,
        events: Optional[Sequence[str]] = None,
        status: Optional[str] = None,
    ) -> Dict[str, Any]:
        """PUT /api/webhook/{id}: another URL, other events, or its status ("active" turns a disabled one on)."""
        body: Dict[str, Any] = {}
        if webhook_url is not None:
            body["webhookUrl"] = webhook_url
        if events is not None:
            body["events"] = list(events)
        if status is not None:
            body["status"] = status
        return cast(Dict[str, Any], self._http.request("PUT", f"/api/webhook/{_segment(id)}", body))

    def delete(self, id: int) -> None:
        """DELETE /api/webhook/{id}"""
        self._http.request("DELETE", f"/api/webhook/{_segment(id)}")

    def test(self, id: int) -> Dict[str, Any]:
        """POST /api/webhook/{id}/test: a signed webhook.test event delivered now ({"eventId"})."""
        return cast(Dict[str, Any], self._http.request("POST", f"/api/webhook/{_segment(id)}/test"))

    def deliveries(self, id: int, *, limit: Optional[int] = None) -> List[Dict[str, Any]]:
        """GET /api/webhook/{id}/deliveries: its latest deliveries, newest first."""
        path = f"/api/webhook/{_segment(id)}/deliveries{_params(limit=limit)}"
        return cast(List[Dict[str, Any]], self._http.request("GET", path))

    def resend(self, delivery_id: int) -> Dict[str, Any]:
        """POST /api/webhook/deliveries/{id}/resend: one delivery sent again."""
        return cast(Dict[str, Any], self._http.request("POST", f"/api/webhook/deliveries/{_segment(delivery_id)}/resend"))

    def rotate_secret(self, id: int, *, overlap_hours: Optional[int] = None) -> Dict[str, Any]:
        """POST /api/webhook/{id}/rotate-secret: a new whsec_ secret ({"secret"}); the old one signs too for
        overlap_hours (24)."""
        body = {} if overlap_hours is None else {"overlapHours": overlap_hours}
        return cast(Dict[str, Any], self._http.request("POST", f"/api/webhook/{_segment(id)}/rotate-secret", body))

    def recover(self, id: int, *, since: Instant, until: Optional[Instant] = None) -> Dict[str, Any]:
        """POST /api/webhook/{id}/recover: the events since ``since`` (until ``until``) queued to it again."""
        body = {"since": _instant(since)}
        if until is not None:
            body["until"] = _instant(until)
        return cast(Dict[str, Any], self._http.request("POST", f"/api/webhook/{_segment(id)}/recover", body))

    def stats(self, id: int, *, hours: Optional[int] = None) -> Dict[str, Any]:
        """GET /api/webhook/{id}/stats: delivered, failed and pending over the last ``hours`` (24)."""
        return cast(Dict[str, Any], self._http.request("GET", f"/api/webhook/{_segment(id)}/stats{_params(hours=hours)}"))


class SandboxResource:
    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def pay(self, id: Id) -> types.Sale:
        """POST /api/sandbox/sales/{id}/status {"status": "PAGO"}: pays a test charge as the processor's callback
        would (sandbox only), so its webhooks are sent as for a real payment."""
        return cast(types.Sale, self._http.request("POST", f"/api/sandbox/sales/{_segment(id)}/status", {"status": "PAGO"}))

    def set_status(self, id: Id, status: str) -> types.Sale:
        """POST /api/sandbox/sales/{id}/status: any status a processor could report (RECUSADO, ESTORNADO, ...)."""
        return cast(types.Sale, self._http.request("POST", f"/api/sandbox/sales/{_segment(id)}/status", {"status": status}))

    def create_sale(self, body: Dict[str, Any]) -> types.Sale:
        """POST /api/sandbox/sales: a sale as the legacy sales API makes it (sandbox only)."""
        return cast(types.Sale, self._http.request("POST", "/api/sandbox/sales", body))

    def open_dispute(self, id: Id, body: Dict[str, Any]) -> types.Dispute:
        """POST /api/sandbox/sales/{id}/dispute {kind: "chargeback" | "med", amountCents?, reason?}."""
        return cast(types.Dispute, self._http.request("POST", f"/api/sandbox/sales/{_segment(id)}/dispute", body))

    def decide_dispute(self, id: str, outcome: str) -> types.Dispute:
        """POST /api/sandbox/disputes/{id}/outcome {outcome: "won" | "lost"}: the processor's verdict."""
        path = f"/api/sandbox/disputes/{_segment(id)}/outcome"
        return cast(types.Dispute, self._http.request("POST", path, {"outcome": outcome}))

    def advance_subscription(self, id: str) -> types.Subscription:
        """POST /api/sandbox/subscriptions/{id}/advance: the next charge (or retry) made now, as the scheduler would."""
        return cast(types.Subscription, self._http.request("POST", f"/api/sandbox/subscriptions/{_segment(id)}/advance"))

    def complete_withdrawal(self, id: Id) -> types.Withdrawal:
        """POST /api/sandbox/cashouts/{id}/result {"result": "COMPLETED"}: the payout provider pays a PROCESSING
        withdrawal."""
        path = f"/api/sandbox/cashouts/{_segment(id)}/result"
        return cast(types.Withdrawal, self._http.request("POST", path, {"result": "COMPLETED"}))

    def reject_withdrawal(self, id: Id) -> types.Withdrawal:
        """POST /api/sandbox/cashouts/{id}/result {"result": "REJECTED"}: the provider refuses it (the money comes
        back)."""
        path = f"/api/sandbox/cashouts/{_segment(id)}/result"
        return cast(types.Withdrawal, self._http.request("POST", path, {"result": "REJECTED"}))

    def cancel_withdrawal(self, id: Id) -> types.Withdrawal:
        """POST /api/sandbox/cashouts/{id}/cancel: a withdrawal not yet sent canceled."""
        return cast(types.Withdrawal, self._http.request("POST", f"/api/sandbox/cashouts/{_segment(id)}/cancel"))

    def create_recurrence(self, body: Dict[str, Any]) -> Dict[str, Any]:
        """POST /api/sandbox/recurrences: a Pix Automatico recurrence authorized by the payer at once."""
        return cast(Dict[str, Any], self._http.request("POST", "/api/sandbox/recurrences", body))

    def run_recurrence_cycle(self, id_rec: str) -> Any:
        """POST /api/sandbox/recurrences/{idRec}/cycles: the recurrence's next cycle charged now."""
        return self._http.request("POST", f"/api/sandbox/recurrences/{_segment(id_rec)}/cycles")

    def create_cart(self, body: Dict[str, Any]) -> Dict[str, Any]:
        """POST /api/sandbox/carts: a cart, for the abandoned-cart event."""
        return cast(Dict[str, Any], self._http.request("POST", "/api/sandbox/carts", body))

    def abandon_cart(self, id: Id) -> Dict[str, Any]:
        """POST /api/sandbox/carts/{id}/abandon: the cart abandoned now (its event sent)."""
        return cast(Dict[str, Any], self._http.request("POST", f"/api/sandbox/carts/{_segment(id)}/abandon"))

    def decide_anticipation(
        self, outcome: str, *, amount_cents: Optional[int] = None, up_to: Optional[str] = None
    ) -> Dict[str, Any]:
        """POST /api/sandbox/anticipations: an anticipation asked for and decided at once ("paid" or "rejected")."""
        body: Dict[str, Any] = {"outcome": outcome}
        body.update({k: v for k, v in (("amountCents", amount_cents), ("upTo", up_to)) if v is not None})
        return cast(Dict[str, Any], self._http.request("POST", "/api/sandbox/anticipations", body))


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
        self.fees = FeesResource(http)
        self.cards = CardsResource(http)
        self.anticipations = AnticipationsResource(http)

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


# Every SDK method and the operation of the API document it calls ("METHOD /path" as /openapi.json spells it):
# a test checks this table against the document both ways and each method against the request it makes.
ROUTES: Dict[str, str] = {
    "balance.retrieve": "GET /api/public/balance",
    "fees.retrieve": "GET /api/fees",
    "cashouts.create": "POST /api/public/cashout",
    "cashouts.retrieve": "GET /api/public/cashout/{id}",
    "transactions.create": "POST /api/transactions",
    "transactions.retrieve": "GET /api/transactions/{id}",
    "transactions.list": "GET /api/transactions",
    "transactions.iterate": "GET /api/transactions",
    "transactions.cancel": "POST /api/transactions/{id}/cancel",
    "transactions.refunds": "GET /api/transactions/{id}/refunds",
    "transactions.refund": "POST /api/transactions/{id}/refund",
    "transactions.capture": "POST /api/transactions/{id}/capture",
    "transactions.boleto_pdf": "GET /api/transactions/{id}/boleto.pdf",
    "cards.tokenize": "POST /api/cards/tokens",
    "payment_links.create": "POST /api/payment-links",
    "payment_links.list": "GET /api/payment-links",
    "payment_links.retrieve": "GET /api/payment-links/{id}",
    "payment_links.update": "PATCH /api/payment-links/{id}",
    "checkout.sessions.create": "POST /api/checkout/sessions",
    "checkout.sessions.retrieve": "GET /api/checkout/sessions/{id}",
    "receivables.list": "GET /api/receivables",
    "anticipations.simulate": "POST /api/anticipations/simulate",
    "anticipations.create": "POST /api/anticipations",
    "anticipations.list": "GET /api/anticipations",
    "disputes.list": "GET /api/disputes",
    "disputes.retrieve": "GET /api/disputes/{id}",
    "disputes.accept": "POST /api/disputes/{id}/accept",
    "disputes.respond": "POST /api/disputes/{id}/evidence",
    "recipients.create": "POST /api/recipients",
    "recipients.list": "GET /api/recipients",
    "recipients.retrieve": "GET /api/recipients/{id}",
    "recipients.update": "PATCH /api/recipients/{id}",
    "recipients.balance": "GET /api/recipients/{id}/balance",
    "recipients.receivables": "GET /api/recipients/{id}/receivables",
    "recipients.withdrawals": "GET /api/recipients/{id}/withdrawals",
    "recipients.statement": "GET /api/recipients/{id}/statement",
    "recipients.cashout": "POST /api/recipients/{id}/cashout",
    "refunds.list": "GET /api/transactions/{id}/refunds",
    "webhooks.create": "POST /api/webhook",
    "webhooks.list": "GET /api/webhook",
    "webhooks.update": "PUT /api/webhook/{id}",
    "webhooks.delete": "DELETE /api/webhook/{id}",
    "webhooks.test": "POST /api/webhook/{id}/test",
    "webhooks.deliveries": "GET /api/webhook/{id}/deliveries",
    "webhooks.resend": "POST /api/webhook/deliveries/{id}/resend",
    "webhooks.rotate_secret": "POST /api/webhook/{id}/rotate-secret",
    "webhooks.recover": "POST /api/webhook/{id}/recover",
    "webhooks.stats": "GET /api/webhook/{id}/stats",
    "customers.create": "POST /api/customers",
    "customers.list": "GET /api/customers",
    "customers.retrieve": "GET /api/customers/{id}",
    "customers.save_card": "POST /api/customers/{id}/cards",
    "customers.delete_card": "DELETE /api/customers/{id}/cards/{cardId}",
    "plans.create": "POST /api/plans",
    "plans.list": "GET /api/plans",
    "plans.retrieve": "GET /api/plans/{id}",
    "plans.update": "PATCH /api/plans/{id}",
    "subscriptions.create": "POST /api/subscriptions",
    "subscriptions.list": "GET /api/subscriptions",
    "subscriptions.retrieve": "GET /api/subscriptions/{id}",
    "subscriptions.update": "PATCH /api/subscriptions/{id}",
    "subscriptions.cancel": "POST /api/subscriptions/{id}/cancel",
    "events.list": "GET /api/events",
    "events.iterate": "GET /api/events",
    "events.retrieve": "GET /api/events/{id}",
    "events.stream": "GET /api/events/stream",
    "sandbox.create_sale": "POST /api/sandbox/sales",
    "sandbox.pay": "POST /api/sandbox/sales/{id}/status",
    "sandbox.set_status": "POST /api/sandbox/sales/{id}/status",
    "sandbox.open_dispute": "POST /api/sandbox/sales/{id}/dispute",
    "sandbox.decide_dispute": "POST /api/sandbox/disputes/{id}/outcome",
    "sandbox.advance_subscription": "POST /api/sandbox/subscriptions/{id}/advance",
    "sandbox.complete_withdrawal": "POST /api/sandbox/cashouts/{id}/result",
    "sandbox.reject_withdrawal": "POST /api/sandbox/cashouts/{id}/result",
    "sandbox.cancel_withdrawal": "POST /api/sandbox/cashouts/{id}/cancel",
    "sandbox.create_recurrence": "POST /api/sandbox/recurrences",
    "sandbox.run_recurrence_cycle": "POST /api/sandbox/recurrences/{idRec}/cycles",
    "sandbox.create_cart": "POST /api/sandbox/carts",
    "sandbox.abandon_cart": "POST /api/sandbox/carts/{id}/abandon",
    "sandbox.decide_anticipation": "POST /api/sandbox/anticipations",
}


__all__ = [
    "ROUTES",
    "Gateway",
    "AnticipationsResource",
    "CardsResource",
    "CustomersResource",
    "DisputesResource",
    "FeesResource",
    "PlansResource",
    "RecipientsResource",
    "SubscriptionsResource",
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
