// Key fields, PATCH (null sent through nullable.Nullable), rotation, usage and teams (client 1.4.0)
// against the live gateway of scripts/test.sh (models demo and demo-claude, pool demo-pool, team research).
package gatewayadmin_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	gatewayadmin "github.com/gateway/gateway/clients-go"
	"github.com/oapi-codegen/nullable"
)

func createKey(t *testing.T, client *gatewayadmin.ClientWithResponses, body gatewayadmin.KeyCreate) *gatewayadmin.KeyCreated {
	t.Helper()
	created, err := client.PostApiV1AdminKeysWithResponse(ctx(t), body)
	if err != nil {
		t.Fatalf("PostApiV1AdminKeysWithResponse: %v", err)
	}
	if created.StatusCode() != 201 || created.JSON201 == nil {
		t.Fatalf("create: status = %d (body %s)", created.StatusCode(), created.Body)
	}
	return created.JSON201
}

func TestKeyFieldsAndPatch(t *testing.T) {
	client := adminClient(t)
	period, tpm, team := gatewayadmin.BudgetPeriod("daily"), 40000, "research"
	budget, rpm, name := 300, 9, "go-limits"
	expires := time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)
	models := []string{"demo", "demo-pool"}
	metadata := gatewayadmin.KeyMetadata{"client": "go"}
	key := createKey(t, client, gatewayadmin.KeyCreate{
		Name: &name, BudgetCents: &budget, BudgetPeriod: &period, Rpm: &rpm, Tpm: &tpm,
		Models: &models, ExpiresAt: &expires, Team: &team, Metadata: &metadata,
	})
	if *key.BudgetPeriod != period || *key.Tpm != tpm || !slices.Equal(*key.Models, models) || !key.ExpiresAt.Equal(expires) ||
		*key.Team != team || key.Metadata["client"] != "go" || key.PeriodStartedAt == nil || *key.RemainingUsd != "3.00000000" {
		t.Fatalf("created key = %s", jsonString(key))
	}

	// PATCH: a member set, one cleared with null, the rest left as they were.
	update := gatewayadmin.KeyUpdate{}
	update.BudgetCents.Set(900)
	update.Rpm.SetNull()
	update.Models.SetNull()
	patched, err := client.PatchApiV1AdminKeysIdWithResponse(ctx(t), key.Id, update)
	if err != nil {
		t.Fatalf("PatchApiV1AdminKeysIdWithResponse: %v", err)
	}
	if patched.StatusCode() != 200 || patched.JSON200 == nil {
		t.Fatalf("patch: status = %d (body %s)", patched.StatusCode(), patched.Body)
	}
	view := patched.JSON200
	if *view.BudgetCents != 900 || view.Rpm != nil || view.Models != nil || *view.Tpm != tpm || *view.Team != team || *view.Name != name {
		t.Fatalf("patched key = %s", jsonString(view))
	}

	// A model the gateway does not have: 400 naming it.
	unknown := gatewayadmin.KeyUpdate{Models: nullable.NewNullableWithValue([]string{"gpt-9"})}
	refused, err := client.PatchApiV1AdminKeysIdWithResponse(ctx(t), key.Id, unknown)
	if err != nil || refused.StatusCode() != 400 || refused.JSON400 == nil || !strings.Contains(refused.JSON400.Error.Message, `"gpt-9"`) {
		t.Fatalf("patch with an unknown model: err %v, status %d (body %s)", err, refused.StatusCode(), refused.Body)
	}
	missing, err := client.PatchApiV1AdminKeysIdWithResponse(ctx(t), unknownKeyID, update)
	if err != nil || missing.StatusCode() != 404 || missing.JSON404 == nil {
		t.Fatalf("patch of an unknown key: err %v, status %d", err, missing.StatusCode())
	}
}

func TestKeyRotate(t *testing.T) {
	client := adminClient(t)
	key := createKey(t, client, gatewayadmin.KeyCreate{})
	grace := 120
	rotated, err := client.PostApiV1AdminKeysIdRotateWithResponse(ctx(t), key.Id, gatewayadmin.KeyRotate{GraceSeconds: &grace})
	if err != nil {
		t.Fatalf("PostApiV1AdminKeysIdRotateWithResponse: %v", err)
	}
	if rotated.StatusCode() != 200 || rotated.JSON200 == nil {
		t.Fatalf("rotate: status = %d (body %s)", rotated.StatusCode(), rotated.Body)
	}
	next := rotated.JSON200
	if next.Id != key.Id || next.Secret == key.Secret || !secretPattern.MatchString(next.Secret) || next.RotatedAt == nil ||
		next.PreviousSecretUntil == nil || next.PreviousSecretUntil.Sub(*next.RotatedAt) != 120*time.Second {
		t.Fatalf("rotated key = %s", jsonString(next))
	}
	if rotated.HTTPResponse.Header.Get("cache-control") != "no-store" {
		t.Fatalf("cache-control = %q", rotated.HTTPResponse.Header.Get("cache-control"))
	}
	if _, err := client.DeleteApiV1AdminKeysIdWithResponse(ctx(t), key.Id); err != nil {
		t.Fatalf("revoke: %v", err)
	}
	conflict, err := client.PostApiV1AdminKeysIdRotateWithResponse(ctx(t), key.Id, gatewayadmin.KeyRotate{})
	if err != nil || conflict.StatusCode() != 409 || conflict.JSON409 == nil || conflict.JSON409.Error.Code != "key_revoked" {
		t.Fatalf("rotate a revoked key: err %v, status %d (body %s)", err, conflict.StatusCode(), conflict.Body)
	}
}

func TestUsageAndTeams(t *testing.T) {
	client := adminClient(t)
	from, groupBy := "2026-01-01", "day,model"
	report, err := client.GetApiV1AdminUsageWithResponse(ctx(t), &gatewayadmin.GetApiV1AdminUsageParams{From: &from, GroupBy: &groupBy})
	if err != nil {
		t.Fatalf("GetApiV1AdminUsageWithResponse: %v", err)
	}
	if report.StatusCode() != 200 || report.JSON200 == nil {
		t.Fatalf("usage: status = %d (body %s)", report.StatusCode(), report.Body)
	}
	if got := report.JSON200; got.From == nil || got.From.Format(time.RFC3339) != "2026-01-01T00:00:00Z" || got.To != nil || len(got.GroupBy) != 2 {
		t.Fatalf("usage report = %s", report.Body)
	}
	bad := "week"
	refused, err := client.GetApiV1AdminUsageWithResponse(ctx(t), &gatewayadmin.GetApiV1AdminUsageParams{GroupBy: &bad})
	if err != nil || refused.StatusCode() != 400 || refused.JSON400 == nil || !strings.Contains(refused.JSON400.Error.Message, "week") {
		t.Fatalf("usage with group_by=week: err %v, status %d (body %s)", err, refused.StatusCode(), refused.Body)
	}

	team := "research"
	key := createKey(t, client, gatewayadmin.KeyCreate{Team: &team})
	own, err := client.GetApiV1AdminKeysIdUsageWithResponse(ctx(t), key.Id, nil)
	if err != nil || own.StatusCode() != 200 || own.JSON200 == nil || own.JSON200.Total.Requests != 0 || own.JSON200.Total.CostUsd != "0.00000000" {
		t.Fatalf("a new key's usage: err %v, status %d (body %s)", err, own.StatusCode(), own.Body)
	}
	teams, err := client.GetApiV1AdminTeamsWithResponse(ctx(t))
	if err != nil || teams.StatusCode() != 200 || teams.JSON200 == nil {
		t.Fatalf("GetApiV1AdminTeamsWithResponse: err %v, status %d", err, teams.StatusCode())
	}
	i := slices.IndexFunc(teams.JSON200.Data, func(v gatewayadmin.TeamView) bool { return v.Name == team })
	if i < 0 || !teams.JSON200.Data[i].Configured || teams.JSON200.Data[i].Keys < 1 {
		t.Fatalf("teams = %s, want research configured with a key", teams.Body)
	}
}
