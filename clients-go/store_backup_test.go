// POST /api/v1/admin/store/backup against the live gateway: its SQLite store, answered as bytes.
package gatewayadmin_test

import (
	"bytes"
	"testing"
)

func TestStoreBackup(t *testing.T) {
	resp, err := adminClient(t).PostApiV1AdminStoreBackupWithResponse(ctx(t))
	if err != nil {
		t.Fatalf("PostApiV1AdminStoreBackupWithResponse: %v", err)
	}
	if resp.StatusCode() != 200 {
		t.Fatalf("status = %d (body %s)", resp.StatusCode(), resp.Body)
	}
	if got := resp.HTTPResponse.Header.Get("Content-Type"); got != "application/vnd.sqlite3" {
		t.Fatalf("content-type = %q", got)
	}
	if !bytes.HasPrefix(resp.Body, []byte("SQLite format 3\x00")) {
		t.Fatalf("the answer is not a SQLite file: %q", resp.Body[:min(len(resp.Body), 32)])
	}
}
