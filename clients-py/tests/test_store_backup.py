"""POST /api/v1/admin/store/backup: the live gateway's SQLite store, answered as bytes (a File)."""

from collections.abc import Callable
from http import HTTPStatus

from gateway_admin_client import AuthenticatedClient
from gateway_admin_client.api.default import post_api_v1_admin_store_backup
from gateway_admin_client.types import File


def test_store_backup_is_a_sqlite_file(make_client: Callable[..., AuthenticatedClient]) -> None:
    with make_client() as client:
        response = post_api_v1_admin_store_backup.sync_detailed(client=client)
    assert response.status_code == HTTPStatus.OK
    assert response.headers["content-type"] == "application/vnd.sqlite3"
    assert isinstance(response.parsed, File)
    assert response.parsed.payload.read(16) == b"SQLite format 3\x00"
