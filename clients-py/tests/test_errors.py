"""Error answers come back as ErrorView values (never exceptions): 401, 404 and 400; sync and asyncio."""

import json
from http import HTTPStatus

import pytest

from gateway_admin_client import AuthenticatedClient, Client
from gateway_admin_client.api.default import (
    delete_api_v1_admin_keys_id,
    get_api_v1_admin_info,
    get_api_v1_admin_keys,
    get_api_v1_admin_keys_id,
    post_api_v1_admin_keys,
)
from gateway_admin_client.models import ErrorView, KeyCreate

UNAUTHORIZED = {
    "error": {
        "code": "unauthorized",
        "message": "a valid admin token is required (x-admin-token or Authorization: Bearer)",
    }
}
UNKNOWN_ID = "key_00000000000000000000000000"
NOT_FOUND = {"error": {"code": "not_found", "message": f'no key with id "{UNKNOWN_ID}"'}}


def check_error(value: object, expected: dict) -> None:
    assert isinstance(value, ErrorView)
    assert value.to_dict() == expected
    assert (value.error.code, value.error.message) == (expected["error"]["code"], expected["error"]["message"])


def test_wrong_token_sync(make_client) -> None:
    with make_client(token="not-the-admin-token") as wrong:
        check_error(get_api_v1_admin_info.sync(client=wrong), UNAUTHORIZED)
        response = get_api_v1_admin_info.sync_detailed(client=wrong)
        assert response.status_code == HTTPStatus.UNAUTHORIZED
        assert json.loads(response.content) == UNAUTHORIZED
        check_error(response.parsed, UNAUTHORIZED)
        created = post_api_v1_admin_keys.sync_detailed(client=wrong, body=KeyCreate(name="nope"))
        assert created.status_code == HTTPStatus.UNAUTHORIZED
        check_error(created.parsed, UNAUTHORIZED)
        check_error(get_api_v1_admin_keys.sync(client=wrong), UNAUTHORIZED)


def test_no_token_sync(endpoint: str) -> None:
    with Client(base_url=endpoint) as anonymous:
        response = get_api_v1_admin_info.sync_detailed(client=anonymous)
        assert response.status_code == HTTPStatus.UNAUTHORIZED
        check_error(response.parsed, UNAUTHORIZED)


def test_unknown_key_sync(client: AuthenticatedClient) -> None:
    check_error(get_api_v1_admin_keys_id.sync(UNKNOWN_ID, client=client), NOT_FOUND)
    response = get_api_v1_admin_keys_id.sync_detailed(UNKNOWN_ID, client=client)
    assert response.status_code == HTTPStatus.NOT_FOUND
    assert json.loads(response.content) == NOT_FOUND
    revoke = delete_api_v1_admin_keys_id.sync_detailed(UNKNOWN_ID, client=client)
    assert revoke.status_code == HTTPStatus.NOT_FOUND
    check_error(revoke.parsed, NOT_FOUND)


def test_invalid_body_sync(client: AuthenticatedClient) -> None:
    response = post_api_v1_admin_keys.sync_detailed(client=client, body=KeyCreate(rpm=0))
    assert response.status_code == HTTPStatus.BAD_REQUEST
    check_error(response.parsed, {"error": {"code": "invalid_request", "message": "body.rpm: must be >= 1"}})


@pytest.mark.anyio
async def test_wrong_token_asyncio(make_client) -> None:
    async with make_client(token="not-the-admin-token") as wrong:
        check_error(await get_api_v1_admin_info.asyncio(client=wrong), UNAUTHORIZED)
        response = await get_api_v1_admin_info.asyncio_detailed(client=wrong)
        assert response.status_code == HTTPStatus.UNAUTHORIZED
        assert json.loads(response.content) == UNAUTHORIZED
        created = await post_api_v1_admin_keys.asyncio_detailed(client=wrong, body=KeyCreate())
        assert created.status_code == HTTPStatus.UNAUTHORIZED
        check_error(created.parsed, UNAUTHORIZED)


@pytest.mark.anyio
async def test_unknown_key_asyncio(make_client) -> None:
    async with make_client() as client:
        check_error(await get_api_v1_admin_keys_id.asyncio(UNKNOWN_ID, client=client), NOT_FOUND)
        response = await get_api_v1_admin_keys_id.asyncio_detailed(UNKNOWN_ID, client=client)
        assert response.status_code == HTTPStatus.NOT_FOUND
        assert json.loads(response.content) == NOT_FOUND
        revoke = await delete_api_v1_admin_keys_id.asyncio(UNKNOWN_ID, client=client)
        check_error(revoke, NOT_FOUND)
