"""GET /api/v1/admin/info and GET /api/v1/admin/config/version, sync and asyncio."""

import datetime
import re
from http import HTTPStatus

import pytest

from gateway_admin_client import AuthenticatedClient
from gateway_admin_client.api.default import get_api_v1_admin_config_version, get_api_v1_admin_info
from gateway_admin_client.models import ConfigVersionView, InfoView, ProtocolId

CONFIG_VERSION = re.compile(r"^cfg_[0-9a-f]{16}$")


def check_info(info: object, server_version: str) -> None:
    assert isinstance(info, InfoView)
    assert info.version == server_version
    assert [(m.name, m.provider, m.protocol, m.upstream_model) for m in info.topology.models] == [
        ("demo", "demo", ProtocolId.OPENAI, "demo-echo"),
        ("demo-claude", "demo-anthropic", ProtocolId.ANTHROPIC, "demo-echo"),
    ]
    assert [p.name for p in info.topology.pools] == ["demo-pool"]
    assert [(m.model, m.weight, m.provider, m.protocol) for m in info.topology.pools[0].members] == [
        ("demo", 2, "demo", ProtocolId.OPENAI),
        ("demo-claude", 1, "demo-anthropic", ProtocolId.ANTHROPIC),
    ]
    assert CONFIG_VERSION.match(info.config_version), info.config_version
    assert 0 <= info.uptime_seconds < 600
    assert info.build.node.startswith("24."), info.build.node
    assert "admin" in info.build.modules
    assert {f"protocol:{p}" for p in ProtocolId} <= set(info.build.modules)


def check_config_version(view: object, info: InfoView) -> None:
    assert isinstance(view, ConfigVersionView)
    assert view.config_version == info.config_version
    assert isinstance(view.loaded_at, datetime.datetime)
    assert view.loaded_at.tzinfo is not None
    now = datetime.datetime.now(datetime.UTC)
    assert now - datetime.timedelta(seconds=600) < view.loaded_at <= now


def test_info_sync(client: AuthenticatedClient, server_version: str) -> None:
    check_info(get_api_v1_admin_info.sync(client=client), server_version)


def test_info_sync_detailed(client: AuthenticatedClient, server_version: str) -> None:
    response = get_api_v1_admin_info.sync_detailed(client=client)
    assert response.status_code == HTTPStatus.OK
    assert response.headers["content-type"].startswith("application/json")
    check_info(response.parsed, server_version)


def test_info_with_bearer_token(endpoint: str, token: str, server_version: str) -> None:
    # AuthenticatedClient's default: Authorization: Bearer <token>, the other way the admin plane accepts.
    with AuthenticatedClient(base_url=endpoint, token=token) as bearer:
        check_info(get_api_v1_admin_info.sync(client=bearer), server_version)


def test_config_version_sync(client: AuthenticatedClient) -> None:
    info = get_api_v1_admin_info.sync(client=client)
    assert isinstance(info, InfoView)
    response = get_api_v1_admin_config_version.sync_detailed(client=client)
    assert response.status_code == HTTPStatus.OK
    check_config_version(response.parsed, info)
    check_config_version(get_api_v1_admin_config_version.sync(client=client), info)


@pytest.mark.anyio
async def test_info_asyncio(make_client, server_version: str) -> None:
    async with make_client() as client:
        check_info(await get_api_v1_admin_info.asyncio(client=client), server_version)
        response = await get_api_v1_admin_info.asyncio_detailed(client=client)
        assert response.status_code == HTTPStatus.OK
        check_info(response.parsed, server_version)


@pytest.mark.anyio
async def test_config_version_asyncio(make_client) -> None:
    async with make_client() as client:
        info = await get_api_v1_admin_info.asyncio(client=client)
        assert isinstance(info, InfoView)
        check_config_version(await get_api_v1_admin_config_version.asyncio(client=client), info)
        response = await get_api_v1_admin_config_version.asyncio_detailed(client=client)
        assert response.status_code == HTTPStatus.OK
        check_config_version(response.parsed, info)
