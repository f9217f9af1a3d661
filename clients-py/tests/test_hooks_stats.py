"""GET /api/v1/admin/hooks and GET /stats, sync and asyncio.

The live gateway has a gate hook `policy` and a webhook hook `audit`, both answered by a receiver
that allows everything (test/support/live-gateway.ts); GATEWAY_DATA_URL is its data plane.
"""

import datetime
import os
import re
import time
from http import HTTPStatus

import httpx
import pytest

from gateway_admin_client import AuthenticatedClient
from gateway_admin_client.api.default import get_api_v1_admin_hooks, get_stats
from gateway_admin_client.models import ErrorView, HookList, HookViewKind, HookViewOnError, LaneStatsState, StatsView
from gateway_admin_client.types import Unset

CONFIG_VERSION = re.compile(r"^cfg_[0-9a-f]{16}$")


def chat() -> None:
    """One chat request on the data plane (the demo upstream answers it)."""
    response = httpx.post(
        f"{os.environ['GATEWAY_DATA_URL']}/v1/chat/completions",
        json={"model": "demo", "messages": [{"role": "user", "content": "hi"}]},
        timeout=10,
    )
    assert response.status_code == HTTPStatus.OK
    time.sleep(0.05)  # the request's record follows its answer


def check_hooks(hooks: object) -> None:
    assert isinstance(hooks, HookList)
    assert [(h.name, h.kind, h.events, h.timeout_ms) for h in hooks.data] == [
        ("policy", HookViewKind.GATE, ["request.gate"], 2000),
        ("audit", HookViewKind.WEBHOOK, ["request.completed", "request.failed"], 5000),
    ]
    gate, webhook = hooks.data
    assert re.match(r"^http://127\.0\.0\.1:\d+/gate\?token=\*\*\*$", gate.target), gate.target
    assert gate.on_error == HookViewOnError.ALLOW
    assert not isinstance(gate.gate, Unset)
    assert gate.gate.calls >= 1
    assert gate.gate.allowed == gate.gate.calls
    assert isinstance(gate.delivery, Unset)
    assert isinstance(webhook.on_error, Unset)
    assert not isinstance(webhook.delivery, Unset)
    assert (webhook.delivery.failed, webhook.delivery.dropped) == (0, 0)


def test_hooks_sync(client: AuthenticatedClient) -> None:
    chat()
    response = get_api_v1_admin_hooks.sync_detailed(client=client)
    assert response.status_code == HTTPStatus.OK
    assert b"live-hook-secret" not in response.content
    check_hooks(response.parsed)
    check_hooks(get_api_v1_admin_hooks.sync(client=client))


@pytest.mark.anyio
async def test_hooks_asyncio(make_client) -> None:
    chat()
    async with make_client() as client:
        check_hooks(await get_api_v1_admin_hooks.asyncio(client=client))


def test_stats_sync(client: AuthenticatedClient, server_version: str) -> None:
    before = get_stats.sync(client=client)
    assert isinstance(before, StatsView)
    chat()
    response = get_stats.sync_detailed(client=client)
    assert response.status_code == HTTPStatus.OK
    stats = response.parsed
    assert isinstance(stats, StatsView)
    assert stats.version == server_version
    assert CONFIG_VERSION.match(stats.config_version)
    assert isinstance(stats.started_at, datetime.datetime)
    assert stats.requests.total > before.requests.total
    assert stats.requests.completed > before.requests.completed
    assert stats.requests.in_flight == 0
    assert stats.latency_ms.window >= 1
    assert stats.latency_ms.p50 is not None and stats.latency_ms.p50 > 0
    assert stats.tokens.output_tokens > 0
    assert re.match(r"^\d+\.\d{8}$", stats.spent_usd)
    pool = next(p for p in stats.pools if p.pool == "demo-pool")
    assert [(lane.lane, lane.weight, lane.state) for lane in pool.lanes] == [
        ("demo", 2, LaneStatsState.CLOSED),
        ("demo-claude", 1, LaneStatsState.CLOSED),
    ]
    demo = next(p for p in stats.pools if p.pool == "demo").lanes[0]
    assert (demo.open_until, demo.capacity_cooldown_until, demo.config_cooldown_until) == (None, None, None)
    assert demo.counters.successes >= 1
    assert not isinstance(stats.keys, Unset)
    assert stats.keys.active == stats.keys.total - stats.keys.revoked


@pytest.mark.anyio
async def test_stats_asyncio(make_client) -> None:
    async with make_client() as client:
        stats = await get_stats.asyncio(client=client)
        assert isinstance(stats, StatsView)
        assert stats.requests.in_flight == 0


def test_stats_wrong_token(make_client) -> None:
    with make_client(token="not-the-admin-token") as wrong:
        response = get_stats.sync_detailed(client=wrong)
        assert response.status_code == HTTPStatus.UNAUTHORIZED
        assert isinstance(response.parsed, ErrorView)
        assert response.parsed.error.code == "unauthorized"


def test_data_plane_metrics() -> None:
    """GET /metrics is served on the data plane, without a token, as Prometheus text."""
    from gateway_admin_client import Client
    from gateway_admin_client.api.default import get_metrics

    chat()
    with Client(base_url=os.environ["GATEWAY_DATA_URL"]) as data_plane:
        response = get_metrics.sync_detailed(client=data_plane)
    assert response.status_code == HTTPStatus.OK
    assert response.headers["content-type"].startswith("text/plain")
    assert re.search(rb"(?m)^gateway_requests_total\{.*\} [1-9]", response.content), response.content[:500]
