"""verify_webhook: the TypeScript SDK's verifyWebhook, rule for rule."""

import base64
import binascii
import hashlib
import hmac
import json
import logging
import re
import time
from typing import Any, Callable, Dict, Iterable, List, Mapping, NoReturn, Optional, Protocol, Sequence, Tuple, Union, cast

from .errors import WebhookVerificationError
from .types import WEBHOOK_EVENT_CLASSES, UnknownWebhook, WebhookEvent

Headers = Union[Mapping[str, Any], Any]
_log = logging.getLogger("gateway_sdk.webhooks")


def _secrets_of(secret: Any) -> List[str]:
    """The secrets given, checked: a missing one (an unset environment variable) is the receiver's setup."""
    if isinstance(secret, str):
        secrets = [secret]
    elif isinstance(secret, (list, tuple)):
        secrets = list(secret)
    else:
        secrets = []
    if not secrets or any(not isinstance(s, str) or s == "" for s in secrets):
        raise TypeError(
            "secret is required: the webhook's whsec_… secret, shown when the webhook was created"
            " (or both, during a rotation)"
        )
    return secrets


def verify_webhook(
    *,
    body: Union[str, bytes, bytearray, memoryview],
    headers: Headers,
    secret: Union[str, Sequence[str]],
    tolerance_seconds: int = 300,
) -> WebhookEvent:
    """Verifies a webhook of the gateway and returns what it carries, or raises WebhookVerificationError.

    ``body`` is the raw body as received (``request.body`` in Django; re-serialized JSON does not verify);
    ``headers`` the request's headers, names in any case (``request.headers`` in Django, a dict, an
    ``http.client.HTTPMessage``…); ``secret`` the webhook's ``whsec_…`` secret, or during a rotation both the old
    and the new one; ``tolerance_seconds`` how far the signed timestamp may be from now (default 300).

    Both signatures the gateway sends are checked: X-Service-Signature (HMAC-SHA256 of "<timestamp>.<body>" with
    the secret's text) and the Standard Webhooks ``webhook-signature``, which also covers the event id. The
    event type is read from the signed body, never from the unsigned X-Service-Event-Type header. The result is
    one of the dataclasses of ``WebhookEvent``: narrowing on ``event_type`` types its ``payload``.
    """
    secrets = _secrets_of(secret)
    if not isinstance(body, (str, bytes, bytearray, memoryview)):
        raise TypeError("body must be the raw body as received: bytes or str (a parsed body does not verify)")
    raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    get = _header_reader(headers)
    now = int(time.time())

    timestamp = _fresh(get("x-service-timestamp"), tolerance_seconds, now)
    given = [g for g in (get("x-service-signature"), get("x-service-signature-next")) if g is not None]
    if not given:
        _fail("missing X-Service-Signature")
    signed = False
    for s in secrets:
        expected = "sha256=" + hmac.new(s.encode("utf-8"), f"{timestamp}.".encode() + raw, hashlib.sha256).hexdigest()
        if any(_same(g, expected) for g in given):
            signed = True
    if not signed:
        _fail("signature mismatch")

    event_id = get("webhook-id")
    signatures = get("webhook-signature")
    if not event_id or not signatures:
        _fail("missing webhook-id or webhook-signature")
    standard_ts = _fresh(get("webhook-timestamp"), tolerance_seconds, now)
    expected_standard = [
        base64.b64encode(
            hmac.new(
                _lenient_base64(s[6:] if s.startswith("whsec_") else s),
                f"{event_id}.{standard_ts}.".encode() + raw,
                hashlib.sha256,
            ).digest()
        ).decode("ascii")
        for s in secrets
    ]
    id_signed = False
    for entry in signatures.split(" "):
        parts = entry.split(",")
        if parts[0] == "v1" and len(parts) > 1 and any(_same(parts[1], e) for e in expected_standard):
            id_signed = True
    if not id_signed:
        _fail("the event id is not signed")
    claimed_id = get("x-service-event-id")
    if claimed_id is not None and claimed_id != event_id:
        _fail("X-Service-Event-Id does not match the signed webhook-id")

    try:
        payload = json.loads(raw.decode("utf-8", errors="replace"), parse_constant=_not_json)
    except ValueError:
        _fail("the body is not JSON")
    event_type = _stated_type(payload)
    claimed_type = get("x-service-event-type")
    if event_type is not None and claimed_type is not None and claimed_type != event_type:
        _fail("X-Service-Event-Type does not match the signed body")
    cls = WEBHOOK_EVENT_CLASSES.get(event_type) if event_type is not None else None
    if cls is None:
        return UnknownWebhook(event_id=event_id, event_type=None, timestamp=timestamp, payload=payload)
    result: WebhookEvent = cls(event_id=event_id, event_type=event_type, timestamp=timestamp, payload=payload)
    return result


def _header_reader(headers: Headers) -> Callable[[str], Optional[str]]:
    """A reader of headers by lower-case name: a mapping or anything with items() (the last of names differing in case wins, the first of a list of values)."""
    lower: Dict[str, str] = {}
    pairs = cast(Iterable[Tuple[str, Any]], headers.items() if hasattr(headers, "items") else headers)
    for key, value in pairs:
        v = value[0] if isinstance(value, (list, tuple)) and value else value
        if isinstance(v, bytes):
            v = v.decode("latin-1")
        if isinstance(v, str):
            lower[key.lower()] = v
    return lower.get


def _fresh(raw: Optional[str], tolerance: int, now: int) -> int:
    if not raw or not re.fullmatch(r"[0-9]{1,12}", raw):
        _fail("missing or malformed timestamp")
    ts = int(raw)
    if abs(now - ts) > tolerance:
        _fail("timestamp outside the tolerance window")
    return ts


def _stated_type(payload: Any) -> Optional[str]:
    """The event the signed body states (its ``eventType``), never inferred from its status (a partial refund's
    sale.refunded is a PAGO sale); None when it states none."""
    if not isinstance(payload, dict):
        return None
    stated = payload.get("eventType")
    return stated if isinstance(stated, str) and stated != "" else None


def _same(a: str, b: str) -> bool:
    """Constant-time comparison (for strings of the same length)."""
    return hmac.compare_digest(a.encode("utf-8"), b.encode("utf-8"))


def _lenient_base64(text: str) -> bytes:
    """Base64 decoded as Node's Buffer.from(text, 'base64') does: URL-safe letters too, other characters skipped,
    padding optional, a dangling last character ignored."""
    letters = re.sub(r"[^A-Za-z0-9+/]", "", text.replace("-", "+").replace("_", "/").split("=")[0])
    if len(letters) % 4 == 1:
        letters = letters[:-1]
    try:
        return base64.b64decode(letters + "=" * (-len(letters) % 4))
    except binascii.Error:  # cannot happen with the letters kept; a key nothing verifies with
        return b""


def _not_json(constant: str) -> NoReturn:
    raise ValueError(f"{constant} is not JSON")


def _fail(reason: str) -> NoReturn:
    raise WebhookVerificationError(reason)


class EventIdDeduplicator:
    """Remembers the event ids of the deliveries handled within ``ttl_seconds`` (default 24 h), so a retried or
    resent delivery is handled once. In one process's memory: a receiver with several processes keeps the ids
    in its database instead (a unique column)."""

    def __init__(self, ttl_seconds: int = 24 * 3600) -> None:
        self._ttl = ttl_seconds
        self._seen: "dict[str, int]" = {}

    def first_time(self, event_id: str, now: "int | None" = None) -> bool:
        """True the first time an id is seen (handle the event); False for a repeat (answer 2xx, do nothing)."""
        at = int(time.time()) if now is None else now
        for seen_id, seen_at in list(self._seen.items()):
            if at - seen_at <= self._ttl:
                break
            del self._seen[seen_id]
        if event_id in self._seen:
            return False
        self._seen[event_id] = at
        return True

    def forget(self, event_id: str) -> None:
        """Forgets an id, so its next delivery is handled again (its handling failed: the gateway will retry it)."""
        self._seen.pop(event_id, None)


class EventIdStore(Protocol):
    """Where the ids of handled events are kept: EventIdDeduplicator in one process, a unique column with
    several."""

    def first_time(self, event_id: str) -> bool: ...

    def forget(self, event_id: str) -> None: ...


def handle_webhook(
    *,
    body: Union[str, bytes, bytearray, memoryview],
    headers: Headers,
    secret: Union[str, Sequence[str]],
    on_event: Callable[[WebhookEvent], None],
    deduplicator: EventIdStore,
    tolerance_seconds: int = 300,
) -> Tuple[int, str]:
    """A delivery from start to answer, for any framework: returns the status and text to answer the gateway.

    Verifies it (400 with the reason when it does not), skips an event id already handled (200: a retry or a
    resend), calls ``on_event`` and answers 200; when ``on_event`` raises, the id is forgotten and the answer is
    500, so the gateway's retry runs it again. The exception is logged (logger ``gateway_sdk.webhooks``) and not
    re-raised; the gateway is answered a fixed text, never the exception's (it keeps what it is answered).
    """
    try:
        event = verify_webhook(body=body, headers=headers, secret=secret, tolerance_seconds=tolerance_seconds)
    except WebhookVerificationError as err:
        return 400, str(err)
    if not deduplicator.first_time(event.event_id):
        return 200, "already handled"
    try:
        on_event(event)
    except Exception as err:  # noqa: BLE001 - any failure of the merchant's handler means "retry me"
        deduplicator.forget(event.event_id)
        _log.exception("webhook %s failed: %s: %s", event.event_id, type(err).__name__, err)
        return 500, "the receiver failed to handle this event; it is retried"
    return 200, "ok"
