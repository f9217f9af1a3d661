// GET /api/v1/admin/hooks and GET /stats against the live gateway, which has a gate hook "policy"
// and a webhook hook "audit" answered by a receiver that allows everything.
package gatewayadmin_test

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	gatewayadmin "github.com/gateway/gateway/clients-go"
)

// chat sends one chat request to the data plane (the demo upstream answers it).
func chat(t *testing.T) {
	t.Helper()
	body := strings.NewReader(`{"model":"demo","messages":[{"role":"user","content":"hi"}]}`)
	resp, err := http.Post(env(t, "GATEWAY_DATA_URL")+"/v1/chat/completions", "application/json", body)
	if err != nil {
		t.Fatalf("chat request: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("chat request: status %d", resp.StatusCode)
	}
	time.Sleep(50 * time.Millisecond) // the request's record follows its answer
}

func TestHooksList(t *testing.T) {
	chat(t)
	resp, err := adminClient(t).GetApiV1AdminHooksWithResponse(ctx(t))
	if err != nil {
		t.Fatalf("GetApiV1AdminHooksWithResponse: %v", err)
	}
	if resp.StatusCode() != 200 || resp.JSON200 == nil {
		t.Fatalf("status = %d (body %s)", resp.StatusCode(), resp.Body)
	}
	if strings.Contains(string(resp.Body), "live-hook-secret") {
		t.Fatalf("the hooks list shows a credential from a URL: %s", resp.Body)
	}
	hooks := resp.JSON200.Data
	if len(hooks) != 2 {
		t.Fatalf("hooks = %s, want policy and audit", resp.Body)
	}
	gate, webhook := hooks[0], hooks[1]
	if gate.Name != "policy" || gate.Kind != gatewayadmin.Gate || !slices.Equal(gate.Events, []string{"request.gate"}) || gate.TimeoutMs != 2000 {
		t.Fatalf("gate = %+v", gate)
	}
	if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/gate\?token=\*\*\*$`).MatchString(gate.Target) {
		t.Fatalf("gate target = %q, want the token masked", gate.Target)
	}
	if gate.OnError == nil || *gate.OnError != gatewayadmin.Allow {
		t.Fatalf("gate on_error = %v, want allow", gate.OnError)
	}
	if gate.Gate == nil || gate.Gate.Calls < 1 || gate.Gate.Allowed != gate.Gate.Calls || gate.Delivery != nil {
		t.Fatalf("gate counters = %+v, delivery = %+v", gate.Gate, gate.Delivery)
	}
	if webhook.Name != "audit" || webhook.Kind != gatewayadmin.Webhook || webhook.OnError != nil || webhook.Gate != nil {
		t.Fatalf("webhook = %+v", webhook)
	}
	if !slices.Equal(webhook.Events, []string{"request.completed", "request.failed"}) {
		t.Fatalf("webhook events = %v", webhook.Events)
	}
	if webhook.Delivery == nil || webhook.Delivery.Failed != 0 || webhook.Delivery.Dropped != 0 {
		t.Fatalf("webhook delivery = %+v", webhook.Delivery)
	}
}

func TestStats(t *testing.T) {
	client := adminClient(t)
	before, err := client.GetStatsWithResponse(ctx(t))
	if err != nil || before.JSON200 == nil {
		t.Fatalf("GetStatsWithResponse: err %v, status %d", err, before.StatusCode())
	}
	chat(t)
	resp, err := client.GetStatsWithResponse(ctx(t))
	if err != nil {
		t.Fatalf("GetStatsWithResponse: %v", err)
	}
	if resp.StatusCode() != 200 || resp.JSON200 == nil {
		t.Fatalf("status = %d (body %s)", resp.StatusCode(), resp.Body)
	}
	stats := resp.JSON200
	if stats.Version != rootPackageVersion(t) || !configVersionPattern.MatchString(stats.ConfigVersion) {
		t.Fatalf("version = %q, config_version = %q", stats.Version, stats.ConfigVersion)
	}
	if age := time.Since(stats.StartedAt); age < 0 || age > 10*time.Minute {
		t.Fatalf("started_at = %v, want the start of this test run", stats.StartedAt)
	}
	if stats.Requests.Total <= before.JSON200.Requests.Total || stats.Requests.Completed <= before.JSON200.Requests.Completed || stats.Requests.InFlight != 0 {
		t.Fatalf("requests = %+v (before %+v)", stats.Requests, before.JSON200.Requests)
	}
	if stats.LatencyMs.Window < 1 || stats.LatencyMs.P50 == nil || *stats.LatencyMs.P50 <= 0 {
		t.Fatalf("latency_ms = %+v", stats.LatencyMs)
	}
	if stats.Tokens.OutputTokens <= 0 {
		t.Fatalf("tokens = %+v", stats.Tokens)
	}
	if !regexp.MustCompile(`^\d+\.\d{8}$`).MatchString(stats.SpentUsd) {
		t.Fatalf("spent_usd = %q", stats.SpentUsd)
	}
	idx := slices.IndexFunc(stats.Pools, func(p gatewayadmin.PoolStats) bool { return p.Pool == "demo-pool" })
	if idx < 0 || len(stats.Pools[idx].Lanes) != 2 {
		t.Fatalf("pools = %s", resp.Body)
	}
	for i, want := range []struct {
		lane   string
		weight int
	}{{"demo", 2}, {"demo-claude", 1}} {
		lane := stats.Pools[idx].Lanes[i]
		if lane.Lane != want.lane || lane.Weight != want.weight || lane.State != gatewayadmin.Closed {
			t.Fatalf("demo-pool lane %d = %+v", i, lane)
		}
		if lane.OpenUntil != nil || lane.CapacityCooldownUntil != nil || lane.ConfigCooldownUntil != nil {
			t.Fatalf("a closed lane has a deadline: %+v", lane)
		}
	}
	if stats.Keys == nil || stats.Keys.Active != stats.Keys.Total-stats.Keys.Revoked {
		t.Fatalf("keys = %+v", stats.Keys)
	}
}

func TestStatsUnauthorized(t *testing.T) {
	resp, err := newClient(t, gatewayadmin.WithRequestEditorFn(withAdminToken("not-the-admin-token"))).GetStatsWithResponse(ctx(t))
	if err != nil {
		t.Fatalf("GetStatsWithResponse: %v", err)
	}
	if resp.JSON200 != nil {
		t.Fatalf("JSON200 = %+v without a valid token", resp.JSON200)
	}
	expectError(t, resp.StatusCode(), 401, resp.Body, "unauthorized")
}

func TestDataPlaneMetrics(t *testing.T) {
	chat(t)
	// /metrics is served on the data plane: point a client at GATEWAY_DATA_URL.
	client, err := gatewayadmin.NewClientWithResponses(env(t, "GATEWAY_DATA_URL"))
	if err != nil {
		t.Fatalf("NewClientWithResponses: %v", err)
	}
	resp, err := client.GetMetricsWithResponse(ctx(t))
	if err != nil {
		t.Fatalf("GetMetricsWithResponse: %v", err)
	}
	if resp.StatusCode() != 200 || !strings.HasPrefix(resp.HTTPResponse.Header.Get("content-type"), "text/plain") {
		t.Fatalf("status = %d, content type %q", resp.StatusCode(), resp.HTTPResponse.Header.Get("content-type"))
	}
	if !regexp.MustCompile(`(?m)^gateway_requests_total\{.*\} [1-9]`).Match(resp.Body) {
		t.Fatalf("no gateway_requests_total sample after a request in:\n%s", resp.Body)
	}
}
