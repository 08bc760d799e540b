"""The HTTP plumbing every resource shares: auth headers, JSON, errors, timeouts and retries (urllib.request)."""

import email.utils
import http.client
import json
import random
import re
import time
import urllib.error
import urllib.request
import uuid
from datetime import timezone
from decimal import Decimal
from typing import Any, Dict, Optional, Tuple, Type

from .errors import GatewayConnectionError, describe_error, error_for

__version__ = "0.1.0"

RETRIED = frozenset({429, 502, 503, 504})
BASE_DELAY_MS = 500
MAX_DELAY_MS = 30_000

# what a failed attempt raises when no answer came: refused, reset, dropped, timed out, a broken answer
NETWORK_ERRORS: Tuple[Type[BaseException], ...] = (OSError, http.client.HTTPException)


def _sleep(seconds: float) -> None:
    time.sleep(seconds)


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """The API never redirects: a 3xx is answered as it is (a GatewayError), never followed with the keys."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None


class HttpClient:
    def __init__(
        self,
        base_url: str,
        public_key: str,
        private_key: str,
        timeout_ms: float = 30_000,
        max_retries: int = 2,
    ) -> None:
        if not base_url:
            raise ValueError("base_url is required")
        if not re.match(r"^https?://[^/]", base_url, re.IGNORECASE):
            raise ValueError(
                f"base_url must be the gateway's address with its scheme, such as http://localhost:3000, not {base_url!r}"
            )
        if not public_key or not private_key:
            raise ValueError("public_key and private_key are required")
        self.base_url = base_url.rstrip("/")
        self.public_key = public_key
        self.private_key = private_key
        self.timeout_ms = timeout_ms
        self.max_retries = max_retries
        self._opener = urllib.request.build_opener(_NoRedirects)

    @staticmethod
    def new_key() -> str:
        """A new idempotency key (the create methods' default): a random UUID."""
        return str(uuid.uuid4())

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        idempotency_key: Optional[str] = None,
        *,
        content_type: Optional[str] = None,
        accept: str = "application/json",
        raw: bool = False,
    ) -> Any:
        """The answer parsed (JSON, else text); with ``raw`` its bytes (a PDF). With ``content_type`` the body is
        bytes sent as they are (multipart), else it is sent as JSON."""
        headers = {
            "Accept": accept,
            "User-Agent": f"payment-gateway-sdk-python/{__version__}",
            "X-API-Public-Key": self.public_key,
            "X-API-Private-Key": self.private_key,
        }
        data: Optional[bytes] = None
        if body is not None and content_type is not None:
            data = body
            headers["Content-Type"] = content_type
        elif body is not None:
            try:
                text = json.dumps(
                    body, separators=(",", ":"), ensure_ascii=False, default=_json_default, allow_nan=False
                )
            except ValueError as err:
                # JSON has no NaN nor infinities (json.dumps would send bare NaN, which no JSON parser takes)
                if "Out of range float" not in str(err):
                    raise
                raise ValueError("a number of the body is not finite (NaN or an infinity): give a finite number") from None
            data = text.encode("utf-8")
            headers["Content-Type"] = "application/json"
        if idempotency_key is not None:
            headers["Idempotency-Key"] = idempotency_key
        # a POST without a key could be done twice by a retry: only reads and keyed POSTs are retried
        retries = self.max_retries if method == "GET" or idempotency_key is not None else 0
        url = f"{self.base_url}{path}"
        attempt = 0
        while True:
            try:
                status, answer_headers, answer = self._send(method, url, headers, data)
            except NETWORK_ERRORS as err:
                if attempt >= retries:
                    raise GatewayConnectionError(f"{method} {path}: no answer ({err!r})") from err
                _sleep(backoff(attempt) / 1000)
                attempt += 1
                continue
            if status in RETRIED and attempt < retries:
                wait = retry_after(answer_headers.get("Retry-After"))
                _sleep((backoff(attempt) if wait is None else wait) / 1000)
                attempt += 1
                continue
            parsed = parse(answer)
            if not 200 <= status <= 299:
                code, message = describe_error(status, parsed)
                raise error_for(status, code, message, answer_headers.get("X-Request-Id"), parsed)
            return answer if raw else parsed

    def stream(self, path: str, last_event_id: Optional[str] = None) -> Any:
        """GET of an event stream: the open answer (read its lines; close it to stop), with no timeout: it waits as
        long as events take. ``last_event_id`` is sent as Last-Event-ID (the events after it come first).
        A non-2xx answer raises as ``request`` does."""
        headers = {
            "Accept": "text/event-stream",
            "User-Agent": f"payment-gateway-sdk-python/{__version__}",
            "X-API-Public-Key": self.public_key,
            "X-API-Private-Key": self.private_key,
        }
        if last_event_id:
            headers["Last-Event-ID"] = last_event_id
        req = urllib.request.Request(f"{self.base_url}{path}", headers=headers, method="GET")
        try:
            answer = self._opener.open(req)
        except urllib.error.HTTPError as err:
            with err:
                parsed = parse(err.read())
                code, message = describe_error(err.code, parsed)
                raise error_for(err.code, code, message, err.headers.get("X-Request-Id"), parsed) from None
        except NETWORK_ERRORS as err:
            raise GatewayConnectionError(f"GET {path}: no answer ({err!r})") from err
        return answer

    def _send(
        self, method: str, url: str, headers: Dict[str, str], data: Optional[bytes]
    ) -> Tuple[int, Any, bytes]:
        """One attempt: (status, headers, body bytes) of whatever the gateway answered; raises when no answer.
        The timeout bounds connecting and each wait for data (urllib's socket timeout)."""
        req = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with self._opener.open(req, timeout=self.timeout_ms / 1000) as answer:
                return answer.status, answer.headers, answer.read()
        except urllib.error.HTTPError as err:  # a non-2xx answer: an answer all the same
            with err:
                return err.code, err.headers, err.read()


def _json_default(value: Any) -> Any:
    """A Decimal (Django's money fields) is sent as its text, which the cashout amount takes ("150.00")."""
    if isinstance(value, Decimal):
        return str(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def parse(raw: bytes) -> Any:
    text = raw.decode("utf-8", errors="replace")
    if text == "":
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def backoff(attempt: int) -> float:
    """Milliseconds: exponential backoff with full jitter, a random wait up to 0.5 s, 1 s, 2 s, …"""
    return random.random() * min(float(MAX_DELAY_MS), BASE_DELAY_MS * 2.0**attempt)


def retry_after(raw: Optional[str]) -> Optional[float]:
    """Retry-After in milliseconds, from seconds or an HTTP date (at most 30 s); None when absent or unreadable."""
    if raw is None:
        return None
    if re.fullmatch(r"[0-9]+(\.[0-9]+)?", raw.strip()):
        return min(float(MAX_DELAY_MS), float(raw.strip()) * 1000)
    try:
        at = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError):
        return None
    if at is None:
        return None
    if at.tzinfo is None:
        at = at.replace(tzinfo=timezone.utc)
    wait: float = (at.timestamp() - time.time()) * 1000
    return min(float(MAX_DELAY_MS), max(0.0, wait))
