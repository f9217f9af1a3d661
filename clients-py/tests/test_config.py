"""The configuration operations: the running configuration (masked), its history, validate with a YAML body.

The live gateway runs from a config file with a store (test/support/live-gateway.ts); nothing here changes it.
"""

import io
import re
from http import HTTPStatus

from gateway_admin_client import AuthenticatedClient
from gateway_admin_client.api.default import (
    get_api_v1_admin_config,
    get_api_v1_admin_config_versions,
    post_api_v1_admin_config_rollback,
    post_api_v1_admin_config_validate,
)
from gateway_admin_client.models import ConfigRollback, ConfigValidation, ConfigVersionList, ConfigView, ErrorView
from gateway_admin_client.types import File

CONFIG_VERSION = re.compile(r"^cfg_[0-9a-f]{16}$")


def test_config_shows_the_running_yaml_masked(client: AuthenticatedClient) -> None:
    view = get_api_v1_admin_config.sync(client=client)
    assert isinstance(view, ConfigView)
    assert view.version == 1
    assert CONFIG_VERSION.match(view.config_version)
    assert "/gate?token=***" in view.yaml
    assert "live-hook-secret" not in view.yaml
    versions = get_api_v1_admin_config_versions.sync(client=client)
    assert isinstance(versions, ConfigVersionList)
    assert versions.stored is True
    assert [(v.version, v.trigger.value, v.current) for v in versions.data] == [(1, "start", True)]


def test_validate_sends_yaml_and_reads_the_problems(client: AuthenticatedClient) -> None:
    body = File(payload=io.BytesIO(b"models: { x: { provider: nowhere, model: m } }\n"), mime_type="application/yaml")
    verdict = post_api_v1_admin_config_validate.sync(client=client, body=body)
    assert isinstance(verdict, ConfigValidation)
    assert verdict.valid is False
    assert any(re.search(r'config\.yaml:1:\d+: models\.x\.provider: unknown provider "nowhere"', p) for p in verdict.problems)


def test_rollback_without_an_earlier_version_is_an_error_view(client: AuthenticatedClient) -> None:
    response = post_api_v1_admin_config_rollback.sync_detailed(client=client, body=ConfigRollback())
    assert response.status_code == HTTPStatus.CONFLICT
    assert isinstance(response.parsed, ErrorView)
    assert response.parsed.error.code == "no_previous_version"
