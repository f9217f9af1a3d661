"""Key fields, PATCH (None clears, UNSET leaves alone), rotation, usage and teams (client 1.4.0).

Against the live gateway of scripts/test.sh: models demo and demo-claude, pool demo-pool, team research.
"""

import datetime
import json
from http import HTTPStatus

from gateway_admin_client import AuthenticatedClient
from gateway_admin_client.api.default import (
    delete_api_v1_admin_keys_id,
    get_api_v1_admin_keys_id_usage,
    get_api_v1_admin_teams,
    get_api_v1_admin_usage,
    patch_api_v1_admin_keys_id,
    post_api_v1_admin_keys,
    post_api_v1_admin_keys_id_rotate,
)
from gateway_admin_client.models import (
    BudgetPeriod,
    ErrorView,
    KeyCreate,
    KeyCreated,
    KeyMetadata,
    KeyRotate,
    KeyUpdate,
    KeyView,
    TeamList,
    UsageReport,
)

UNKNOWN_KEY = "key_00000000000000000000000000"


def create(client: AuthenticatedClient, body: KeyCreate) -> KeyCreated:
    response = post_api_v1_admin_keys.sync_detailed(client=client, body=body)
    assert response.status_code == HTTPStatus.CREATED, response.content
    assert isinstance(response.parsed, KeyCreated)
    return response.parsed


def test_key_fields(client: AuthenticatedClient) -> None:
    expires = datetime.datetime(2099, 1, 1, tzinfo=datetime.UTC)
    metadata = KeyMetadata.from_dict({"client": "py"})
    key = create(
        client,
        KeyCreate(
            name="py-limits",
            budget_cents=1500,
            budget_period=BudgetPeriod.MONTHLY,
            tpm=20_000,
            models=["demo-claude", "demo-pool"],
            expires_at=expires,
            team="research",
            metadata=metadata,
        ),
    )
    assert (key.budget_period, key.tpm, key.models, key.expires_at, key.team) == (
        BudgetPeriod.MONTHLY,
        20_000,
        ["demo-claude", "demo-pool"],
        expires,
        "research",
    )
    assert key.metadata.to_dict() == {"client": "py"}
    assert (key.spent_usd, key.remaining_usd, key.self_serve) == ("0.00000000", "15.00000000", False)
    assert isinstance(key.period_started_at, datetime.datetime) and key.period_started_at.day == 1


def test_unknown_model_is_refused(client: AuthenticatedClient) -> None:
    response = post_api_v1_admin_keys.sync_detailed(client=client, body=KeyCreate(models=["gpt-9"]))
    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert isinstance(response.parsed, ErrorView)
    assert '"gpt-9"' in response.parsed.error.message


def test_patch_sets_leaves_and_clears(client: AuthenticatedClient) -> None:
    key = create(client, KeyCreate(name="py-patch", budget_cents=100, rpm=10, models=["demo"]))
    body = KeyUpdate(budget_cents=700, rpm=None, models=None)
    # None is sent as null (clear); members left UNSET are not sent at all (unchanged).
    assert body.to_dict() == {"budget_cents": 700, "rpm": None, "models": None}
    view = patch_api_v1_admin_keys_id.sync(key.id, client=client, body=body)
    assert isinstance(view, KeyView)
    assert (view.name, view.budget_cents, view.rpm, view.models) == ("py-patch", 700, None, None)
    missing = patch_api_v1_admin_keys_id.sync_detailed(UNKNOWN_KEY, client=client, body=KeyUpdate(name="x"))
    assert missing.status_code == HTTPStatus.NOT_FOUND


def test_rotate(client: AuthenticatedClient) -> None:
    key = create(client, KeyCreate(name="py-rotate"))
    response = post_api_v1_admin_keys_id_rotate.sync_detailed(key.id, client=client, body=KeyRotate(grace_seconds=30))
    assert response.status_code == HTTPStatus.OK
    assert response.headers["cache-control"] == "no-store"
    rotated = response.parsed
    assert isinstance(rotated, KeyCreated)
    assert rotated.id == key.id and rotated.secret != key.secret and rotated.prefix == rotated.secret[:8]
    assert isinstance(rotated.rotated_at, datetime.datetime) and isinstance(
        rotated.previous_secret_until, datetime.datetime
    )
    assert rotated.previous_secret_until - rotated.rotated_at == datetime.timedelta(seconds=30)
    delete_api_v1_admin_keys_id.sync(key.id, client=client)
    conflict = post_api_v1_admin_keys_id_rotate.sync_detailed(key.id, client=client, body=KeyRotate())
    assert conflict.status_code == HTTPStatus.CONFLICT
    assert json.loads(conflict.content)["error"]["code"] == "key_revoked"


def test_usage(client: AuthenticatedClient) -> None:
    report = get_api_v1_admin_usage.sync(client=client, from_="2026-01-01", group_by="day,model")
    assert isinstance(report, UsageReport)
    assert report.from_ == datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
    assert report.to is None
    assert [str(g) for g in report.group_by] == ["day", "model"]
    bad = get_api_v1_admin_usage.sync_detailed(client=client, group_by="week")
    assert bad.status_code == HTTPStatus.BAD_REQUEST
    key = create(client, KeyCreate())
    own = get_api_v1_admin_keys_id_usage.sync(key.id, client=client)
    assert isinstance(own, UsageReport)
    assert (own.total.requests, own.total.cost_cents, own.total.cost_usd) == (0, 0, "0.00000000")
    assert get_api_v1_admin_keys_id_usage.sync_detailed(UNKNOWN_KEY, client=client).status_code == HTTPStatus.NOT_FOUND


def test_teams(client: AuthenticatedClient) -> None:
    create(client, KeyCreate(team="research"))
    teams = get_api_v1_admin_teams.sync(client=client)
    assert isinstance(teams, TeamList)
    research = [t for t in teams.data if t.name == "research"]
    assert len(research) == 1
    assert research[0].configured is True
    assert research[0].keys >= 1
