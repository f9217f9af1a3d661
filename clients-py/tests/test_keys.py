"""Virtual keys: create (201 with the secret, once), list and get (never the secret), revoke; sync and asyncio."""

import datetime
import json
import re
from http import HTTPStatus

import pytest

from gateway_admin_client import AuthenticatedClient
from gateway_admin_client.api.default import (
    delete_api_v1_admin_keys_id,
    get_api_v1_admin_keys,
    get_api_v1_admin_keys_id,
    post_api_v1_admin_keys,
)
from gateway_admin_client.models import KeyCreate, KeyCreated, KeyList, KeyView
from gateway_admin_client.types import UNSET

SECRET = re.compile(r"^gwk_[A-Za-z0-9_-]{43}$")
KEY_ID = re.compile(r"^key_[0-9A-Za-z]{26}$")
KEY_FIELDS = [
    "id",
    "name",
    "owner",
    "prefix",
    "budget_cents",
    "spent_cents",
    "remaining_cents",
    "rpm",
    "created_at",
    "last_used_at",
    "revoked_at",
]


def recent(moment: datetime.datetime) -> bool:
    now = datetime.datetime.now(datetime.UTC)
    return moment.tzinfo is not None and now - datetime.timedelta(seconds=600) < moment <= now


def check_created(created: object, name: str, owner: str, budget_cents: int, rpm: int) -> KeyCreated:
    assert isinstance(created, KeyCreated)
    assert SECRET.match(created.secret), created.secret
    assert created.secret.startswith("gwk_")
    assert created.prefix == created.secret[:8]
    assert KEY_ID.match(created.id), created.id
    assert (created.name, created.owner) == (name, owner)
    assert (created.budget_cents, created.spent_cents, created.remaining_cents, created.rpm) == (
        budget_cents,
        0,
        budget_cents,
        rpm,
    )
    assert recent(created.created_at)
    assert (created.last_used_at, created.revoked_at) == (None, None)
    assert created.additional_properties == {}
    return created


def same_key(view: object, created: KeyCreated) -> KeyView:
    """The key record as list/get show it: every field of the created key, and no secret."""
    assert isinstance(view, KeyView)
    assert not hasattr(view, "secret")
    assert view.additional_properties == {}, "the key record carries an undeclared field"
    assert {f: getattr(view, f) for f in KEY_FIELDS} == {f: getattr(created, f) for f in KEY_FIELDS}
    return view


def check_revoked(view: object, created: KeyCreated) -> KeyView:
    assert isinstance(view, KeyView)
    assert view.id == created.id
    assert view.revoked_at is not None and recent(view.revoked_at)
    assert view.revoked_at >= created.created_at
    unchanged = [f for f in KEY_FIELDS if f != "revoked_at"]
    assert {f: getattr(view, f) for f in unchanged} == {f: getattr(created, f) for f in unchanged}
    return view


def test_create_list_get_revoke_sync(client: AuthenticatedClient) -> None:
    body = KeyCreate(name="py-sync", owner="clients-py", budget_cents=500, rpm=60)
    response = post_api_v1_admin_keys.sync_detailed(client=client, body=body)
    assert response.status_code == HTTPStatus.CREATED
    created = check_created(response.parsed, "py-sync", "clients-py", 500, 60)
    assert json.loads(response.content)["secret"] == created.secret

    listed = get_api_v1_admin_keys.sync_detailed(client=client)
    assert listed.status_code == HTTPStatus.OK
    assert isinstance(listed.parsed, KeyList)
    mine = [k for k in listed.parsed.data if k.id == created.id]
    assert len(mine) == 1
    same_key(mine[0], created)
    assert created.secret not in listed.content.decode()
    assert all("secret" not in k for k in json.loads(listed.content)["data"])
    assert [k.created_at for k in listed.parsed.data] == sorted(k.created_at for k in listed.parsed.data)

    same_key(get_api_v1_admin_keys_id.sync(created.id, client=client), created)
    got = get_api_v1_admin_keys_id.sync_detailed(created.id, client=client)
    assert got.status_code == HTTPStatus.OK
    assert "secret" not in json.loads(got.content)

    revoked = check_revoked(delete_api_v1_admin_keys_id.sync(created.id, client=client), created)
    after = get_api_v1_admin_keys_id.sync(created.id, client=client)
    assert isinstance(after, KeyView)
    assert after.revoked_at == revoked.revoked_at
    again = delete_api_v1_admin_keys_id.sync_detailed(created.id, client=client)
    assert again.status_code == HTTPStatus.OK  # revoking again is harmless
    check_revoked(again.parsed, created)


def test_create_with_no_fields_sync(client: AuthenticatedClient) -> None:
    created = post_api_v1_admin_keys.sync(client=client, body=KeyCreate())
    assert isinstance(created, KeyCreated)
    assert SECRET.match(created.secret)
    assert (created.name, created.owner, created.budget_cents, created.remaining_cents, created.rpm) == (
        None,
        None,
        None,
        None,
        None,
    )
    assert KeyCreate().to_dict() == {}
    assert KeyCreate(name="n").owner is UNSET


def test_secrets_differ_sync(client: AuthenticatedClient) -> None:
    first = post_api_v1_admin_keys.sync(client=client, body=KeyCreate(name="twin"))
    second = post_api_v1_admin_keys.sync(client=client, body=KeyCreate(name="twin"))
    assert isinstance(first, KeyCreated) and isinstance(second, KeyCreated)
    assert first.id != second.id
    assert first.secret != second.secret


@pytest.mark.anyio
async def test_create_list_get_revoke_asyncio(make_client) -> None:
    async with make_client() as client:
        body = KeyCreate(name="py-async", owner="clients-py-async", budget_cents=0, rpm=1)
        response = await post_api_v1_admin_keys.asyncio_detailed(client=client, body=body)
        assert response.status_code == HTTPStatus.CREATED
        created = check_created(response.parsed, "py-async", "clients-py-async", 0, 1)

        listed = await get_api_v1_admin_keys.asyncio(client=client)
        assert isinstance(listed, KeyList)
        mine = [k for k in listed.data if k.id == created.id]
        assert len(mine) == 1
        same_key(mine[0], created)
        listed_detailed = await get_api_v1_admin_keys.asyncio_detailed(client=client)
        assert listed_detailed.status_code == HTTPStatus.OK
        assert created.secret not in listed_detailed.content.decode()

        same_key(await get_api_v1_admin_keys_id.asyncio(created.id, client=client), created)
        got = await get_api_v1_admin_keys_id.asyncio_detailed(created.id, client=client)
        assert got.status_code == HTTPStatus.OK
        same_key(got.parsed, created)

        revoked = await delete_api_v1_admin_keys_id.asyncio_detailed(created.id, client=client)
        assert revoked.status_code == HTTPStatus.OK
        check_revoked(revoked.parsed, created)
        again = await delete_api_v1_admin_keys_id.asyncio(created.id, client=client)
        check_revoked(again, created)
