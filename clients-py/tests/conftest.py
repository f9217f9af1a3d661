"""Fixtures for the gateway admin client's suite.

The suite runs against a live gateway started by test/support/live-gateway.ts (see scripts/test.sh),
which passes GATEWAY_ENDPOINT (the admin plane's base URL) and GATEWAY_ADMIN_TOKEN. Its gateway has the
models demo and demo-claude, the pool demo-pool and an empty SQLite store.
"""

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gateway_admin_client import AuthenticatedClient

REPO_ROOT = Path(__file__).resolve().parents[2]


def pytest_configure(config: pytest.Config) -> None:
    missing = [name for name in ("GATEWAY_ENDPOINT", "GATEWAY_ADMIN_TOKEN") if not os.environ.get(name)]
    if missing:
        raise pytest.UsageError(
            f"{', '.join(missing)} not set: run this suite with clients-py/scripts/test.sh (it starts a gateway)"
        )


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def endpoint() -> str:
    return os.environ["GATEWAY_ENDPOINT"]


@pytest.fixture(scope="session")
def token() -> str:
    return os.environ["GATEWAY_ADMIN_TOKEN"]


@pytest.fixture(scope="session")
def server_version() -> str:
    """The gateway reports the root package.json version as InfoView.version."""
    return json.loads((REPO_ROOT / "package.json").read_text(encoding="utf-8"))["version"]


@pytest.fixture
def make_client(endpoint: str, token: str) -> Callable[..., AuthenticatedClient]:
    """Builds a client that sends the admin token as x-admin-token (the generated default is Authorization: Bearer).

    A new client per test: the generated client caches its httpx.AsyncClient, which is bound to one event loop.
    """

    def make(token: str = token) -> AuthenticatedClient:
        return AuthenticatedClient(base_url=endpoint, token=token, prefix="", auth_header_name="x-admin-token")

    return make


@pytest.fixture
def client(make_client: Callable[..., AuthenticatedClient]) -> Iterator[AuthenticatedClient]:
    with make_client() as c:
        yield c
