"""The payment gateway's Python SDK for merchants' servers (Django, Flask, scripts): standard library only,
Python >= 3.10, the same surface as the TypeScript SDK (sdk/) in snake_case, its types generated from the
gateway's /openapi.json (gateway_sdk.types).

    from gateway_sdk import Gateway, GatewayError, WebhookVerificationError, verify_webhook

    gw = Gateway(base_url="https://gateway.example.com", public_key="pk_…", private_key="sk_…")
    gw.balance.retrieve()
    gw.cashouts.create({"amount": "150.00", "pixKey": "52998224725", "pixKeyType": "CPF"})
"""

from ._http import __version__
from .client import Gateway
from .errors import (
    AuthenticationError,
    BadRequestError,
    ConflictError,
    GatewayConnectionError,
    GatewayError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    UnprocessableEntityError,
    WebhookVerificationError,
)
from .types import WebhookEvent, WebhookEventType
from .webhooks import EventIdDeduplicator, EventIdStore, handle_webhook, verify_webhook

__all__ = [
    "AuthenticationError",
    "BadRequestError",
    "EventIdDeduplicator",
    "EventIdStore",
    "ConflictError",
    "Gateway",
    "GatewayConnectionError",
    "GatewayError",
    "NotFoundError",
    "PermissionDeniedError",
    "RateLimitError",
    "ServerError",
    "UnprocessableEntityError",
    "WebhookEvent",
    "WebhookEventType",
    "WebhookVerificationError",
    "__version__",
    "handle_webhook",
    "verify_webhook",
]
