"""POST /auth/token (data plane): the generated operation against a gateway without self-serve keys."""

import os
from http import HTTPStatus

from gateway_admin_client import Client
from gateway_admin_client.api.default import post_auth_token
from gateway_admin_client.models import ErrorView, TokenExchange


def test_post_auth_token_without_self_serve_keys_is_a_404_error_view() -> None:
    with Client(base_url=os.environ["GATEWAY_DATA_URL"]) as client:
        response = post_auth_token.sync_detailed(client=client, body=TokenExchange(id_token="a.b.c"))
    assert response.status_code == HTTPStatus.NOT_FOUND
    assert isinstance(response.parsed, ErrorView)
    assert response.parsed.error.code == "self_serve_disabled"
    assert "auth.oidc" in response.parsed.error.message
