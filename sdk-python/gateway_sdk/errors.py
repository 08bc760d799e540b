"""The SDK's errors: GatewayError (a non-2xx answer) and its classes by status, GatewayConnectionError (no
answer), WebhookVerificationError (a webhook that does not verify)."""

from typing import Any, Dict, Optional, Tuple, Type


class GatewayError(Exception):
    """A non-2xx answer of the gateway, whichever of its error body shapes it came in.

    ``status`` is the HTTP status; ``code`` the error code (``error.code``, ``code``, ``errorType`` or
    ``error``, whichever the body's shape has); ``message`` its message; ``request_id`` the answer's
    X-Request-Id (quote it to support); ``body`` the answer's body as parsed (its text when it was not JSON).
    The classes below are the same error by status: catch GatewayError for any of them.
    """

    def __init__(self, status: int, code: str, message: str, request_id: Optional[str], body: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.request_id = request_id
        self.body = body

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status!r}, code={self.code!r}, message={self.message!r})"

    def __reduce__(self) -> Tuple[Any, ...]:
        return (type(self), (self.status, self.code, self.message, self.request_id, self.body))


class BadRequestError(GatewayError):
    """400: the request is malformed or fails validation (e.g. VALIDATION_ERROR)."""


class AuthenticationError(GatewayError):
    """401: the key pair is missing, unknown or revoked (UNAUTHORIZED)."""


class PermissionDeniedError(GatewayError):
    """403: the key may not do this (a read-only key, an IP outside the allow-list…)."""


class NotFoundError(GatewayError):
    """404: no such object in this account."""


class ConflictError(GatewayError):
    """409: the request conflicts with the object's state (or an Idempotency-Key reused for another body)."""


class UnprocessableEntityError(GatewayError):
    """422: a business rule refused it (e.g. INSUFFICIENT_BALANCE)."""


class RateLimitError(GatewayError):
    """429 after the retries: too many requests."""


class ServerError(GatewayError):
    """5xx (after the retries, for 502, 503 and 504)."""


_BY_STATUS: Dict[int, Type[GatewayError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}


def error_for(status: int, code: str, message: str, request_id: Optional[str], body: Any) -> GatewayError:
    """The GatewayError of a status: its class by status, else GatewayError itself."""
    cls = _BY_STATUS.get(status) or (ServerError if 500 <= status <= 599 else GatewayError)
    return cls(status, code, message, request_id, body)


class GatewayConnectionError(ConnectionError):
    """No answer (after the retries): the connection failed, was dropped or timed out. The original error is its
    ``__cause__``. A create method's Idempotency-Key makes it safe to call again with the same key."""


class WebhookVerificationError(Exception):
    """A webhook whose signature, timestamp or event id does not verify: answer 400 and do nothing with it."""


def describe_error(status: int, body: Any) -> Tuple[str, str]:
    """The code and message of any of the gateway's error body shapes (as the TypeScript SDK reads them)."""
    b: Dict[str, Any] = body if isinstance(body, dict) else {}
    nested = b.get("error") if isinstance(b.get("error"), dict) else None

    def text(holder: Optional[Dict[str, Any]], key: str) -> str:
        value = holder.get(key) if holder is not None else None
        return value if isinstance(value, str) else ""

    code = (
        text(nested, "code") or text(b, "code") or text(b, "errorType") or text(b, "error") or f"HTTP_{status}"
    )
    message = (
        text(nested, "message")
        or text(b, "message")
        or (body[:200] if isinstance(body, str) else "")
        or f"The gateway answered {status}"
    )
    return code, message
