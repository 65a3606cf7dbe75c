"""Every Web API call of the process goes through a client made here: slack_sdk's own retry
handlers (slack_sdk/http_retry/builtin_handlers.py, slack_sdk 3.x) with a bounded total time.

- ``RateLimitErrorRetryHandler``: HTTP 429, sleeping what ``Retry-After`` says (Slack docs, "Rate
  limits": "a Retry-After HTTP header containing the number of seconds until you can retry").
  A 429 means Slack did nothing, so every method may retry it.
- ``ServerErrorRetryHandler``: HTTP 500 and 503, with exponential backoff and jitter.
- ``ConnectionErrorRetryHandler``: connection reset, remote disconnected, URLError, and timeouts.

A 5xx, a dropped connection or a timeout is *ambiguous* for a call that posts a message
(``chat.postMessage``, ``files.completeUploadExternal``): Slack may have posted it before the
answer was lost. Those two methods are retried here only when the request provably never reached
Slack (connection refused, 429); the rest is left to ``bot.delivery``, which first looks for a
message carrying the post's idempotency key (message metadata) and posts again only when there
is none. Everything else (``chat.update``, ``conversations.*``, ``auth.test``, ...) is idempotent
and retried on all three.

Each handler checks one deadline per request (``RetryState.custom_values``): a call gives up
``total_s`` after its first failure at the latest (plus one request ``timeout``), so a worker is
never stuck behind Slack for long; the outbox retries the job later (bot/outbox.py).
"""

from __future__ import annotations

import socket
import time
from http.client import RemoteDisconnected
from urllib.error import URLError

from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
    ServerErrorRetryHandler,
)
from slack_sdk.http_retry.builtin_interval_calculators import BackoffRetryIntervalCalculator
from slack_sdk.http_retry.handler import RetryHandler
from slack_sdk.http_retry.jitter import RandomJitter
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState
from slack_sdk.webhook import WebhookClient

# Methods whose request posts something: a 5xx or a lost answer may mean it was posted.
POSTING_METHODS = frozenset({"chat.postMessage", "files.completeUploadExternal", "chat.postEphemeral",
                             "chat.scheduleMessage"})
# A retried call waits at most this long in all after its first failure (the outbox tries the
# job again later, so nothing is lost when Slack stays down longer). Slack's own Retry-After for
# chat.postMessage bursts is about 1 s ("Rate limits": special rate limit, 1 message per second
# per channel); 30 s covers a few of them and a short 5xx episode.
DEFAULT_TOTAL_S = 30.0
# One request: Slack answers in well under a second; a slow proxy or the fake Slack's "slow"
# fault gets this long.
DEFAULT_TIMEOUT_S = 10
MAX_RETRIES = 8
BACKOFF = BackoffRetryIntervalCalculator(backoff_factor=0.5, jitter=RandomJitter())


def _method(request: HttpRequest) -> str:
    return request.url.rstrip("/").rsplit("/", 1)[-1].split("?", 1)[0]


def _never_sent(error: Exception | None) -> bool:
    """The request never reached the server (nothing can have been posted)."""
    reason = getattr(error, "reason", error)
    return isinstance(reason, (ConnectionRefusedError, socket.gaierror))


class _Deadline:
    """Mixed into a handler: no retry once the request's budget is spent or would be by the wait."""

    total_s: float

    def _within(self, state: RetryState, wait_s: float) -> bool:
        values = state.custom_values if state.custom_values is not None else {}
        state.custom_values = values
        deadline = values.setdefault("deadline", time.monotonic() + self.total_s)
        return time.monotonic() + wait_s <= deadline


class BoundedRateLimitRetry(_Deadline, RateLimitErrorRetryHandler):
    def __init__(self, total_s: float = DEFAULT_TOTAL_S, max_retry_count: int = MAX_RETRIES):
        super().__init__(max_retry_count=max_retry_count)
        self.total_s = total_s

    def _can_retry(self, *, state: RetryState, request: HttpRequest, response: HttpResponse | None = None,
                   error: Exception | None = None) -> bool:
        if response is None or response.status_code != 429:
            return False
        after = next((v for k, v in response.headers.items() if k.lower() == "retry-after"), ["1"])
        try:
            wait = float(after[0] if isinstance(after, list) else after)
        except ValueError:
            wait = 1.0
        return self._within(state, wait + 1)


class BoundedServerErrorRetry(_Deadline, ServerErrorRetryHandler):
    def __init__(self, total_s: float = DEFAULT_TOTAL_S, max_retry_count: int = MAX_RETRIES):
        super().__init__(max_retry_count=max_retry_count, interval_calculator=BACKOFF)
        self.total_s = total_s

    def _can_retry(self, *, state: RetryState, request: HttpRequest, response: HttpResponse | None = None,
                   error: Exception | None = None) -> bool:
        if response is None or response.status_code not in (500, 502, 503, 504):
            return False
        if _method(request) in POSTING_METHODS:
            return False  # ambiguous: bot.delivery looks for the message before posting again
        return self._within(state, BACKOFF.calculate_sleep_duration(state.current_attempt))


class BoundedConnectionErrorRetry(_Deadline, ConnectionErrorRetryHandler):
    def __init__(self, total_s: float = DEFAULT_TOTAL_S, max_retry_count: int = MAX_RETRIES):
        super().__init__(max_retry_count=max_retry_count, interval_calculator=BACKOFF,
                         error_types=[URLError, ConnectionError, RemoteDisconnected, TimeoutError, socket.timeout])
        self.total_s = total_s

    def _can_retry(self, *, state: RetryState, request: HttpRequest, response: HttpResponse | None = None,
                   error: Exception | None = None) -> bool:
        if not super()._can_retry(state=state, request=request, response=response, error=error):
            return False
        if _method(request) in POSTING_METHODS and not _never_sent(error):
            return False
        return self._within(state, BACKOFF.calculate_sleep_duration(state.current_attempt))


def retry_handlers(total_s: float = DEFAULT_TOTAL_S) -> list[RetryHandler]:
    return [BoundedRateLimitRetry(total_s), BoundedServerErrorRetry(total_s), BoundedConnectionErrorRetry(total_s)]


def make_client(token: str | None, base_url: str, *, total_s: float = DEFAULT_TOTAL_S,
                timeout: int = DEFAULT_TIMEOUT_S) -> WebClient:
    return WebClient(token=token, base_url=base_url, timeout=timeout, retry_handlers=retry_handlers(total_s))


def webhook(url: str, *, total_s: float = DEFAULT_TOTAL_S, timeout: int = DEFAULT_TIMEOUT_S) -> WebhookClient:
    """A response_url client with the same handlers (response_url posts are rate limited too:
    Slack docs, "Handling user interaction": up to 5 times within 30 minutes)."""
    return WebhookClient(url, timeout=timeout, retry_handlers=retry_handlers(total_s))


def send_private(response_url: str, text: str, blocks: list | None = None) -> None:
    """Only the person who asked sees it (response_type ephemeral, through the response_url)."""
    webhook(response_url).send(text=text, blocks=blocks, response_type="ephemeral")


def ambiguous(error: BaseException) -> bool:
    """A failed post that Slack may nevertheless have made (check before posting again)."""
    from slack_sdk.errors import SlackApiError

    if isinstance(error, SlackApiError):
        status = getattr(error.response, "status_code", 200)
        return status >= 500 or error.response.get("error") in ("internal_error", "fatal_error", "request_timeout",
                                                                 "service_unavailable")
    return isinstance(error, (URLError, ConnectionError, RemoteDisconnected, TimeoutError, socket.timeout, OSError))


def retryable(error: BaseException) -> bool:
    """A Slack failure worth trying the job again for later (rate limits, Slack or the network down)."""
    from slack_sdk.errors import SlackApiError

    if isinstance(error, SlackApiError):
        status = getattr(error.response, "status_code", 200)
        return status == 429 or status >= 500 or error.response.get("error") in (
            "ratelimited", "internal_error", "fatal_error", "request_timeout", "service_unavailable")
    return ambiguous(error)


def slack_error(error: BaseException) -> str | None:
    from slack_sdk.errors import SlackApiError

    if isinstance(error, SlackApiError):
        return str(error.response.get("error"))
    return None


def describe(error: BaseException) -> str:
    code = slack_error(error)
    return f"Slack said {code}" if code else f"{type(error).__name__}: {error}"

