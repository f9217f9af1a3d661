// Tests of the generated client against a live gateway (run them with scripts/test.sh, which starts
// one and passes GATEWAY_ENDPOINT, GATEWAY_ADMIN_TOKEN and GATEWAY_DATA_URL).
package gatewayadmin_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	gatewayadmin "github.com/gateway/gateway/clients-go"
)

var (
	configVersionPattern = regexp.MustCompile(`^cfg_[0-9a-f]{16}$`)
	keyIDPattern         = regexp.MustCompile(`^key_[0-9A-Za-z]{26}$`)
	secretPattern        = regexp.MustCompile(`^gwk_[A-Za-z0-9_-]{43}$`)
)

// unknownKeyID is well formed but names no key.
const unknownKeyID = "key_00000000000000000000000000"

func env(t *testing.T, name string) string {
	t.Helper()
	value := os.Getenv(name)
	if value == "" {
		t.Fatalf("%s is not set: run these tests with clients-go/scripts/test.sh (it starts a live gateway)", name)
	}
	return value
}

// withAdminToken is the request editor that authenticates a request with the x-admin-token header.
func withAdminToken(token string) gatewayadmin.RequestEditorFn {
	return func(_ context.Context, req *http.Request) error {
		req.Header.Set("x-admin-token", token)
		return nil
	}
}

func newClient(t *testing.T, opts ...gatewayadmin.ClientOption) *gatewayadmin.ClientWithResponses {
	t.Helper()
	client, err := gatewayadmin.NewClientWithResponses(env(t, "GATEWAY_ENDPOINT"), opts...)
	if err != nil {
		t.Fatalf("NewClientWithResponses: %v", err)
	}
	return client
}

// adminClient is a client that sends GATEWAY_ADMIN_TOKEN as x-admin-token on every request.
func adminClient(t *testing.T) *gatewayadmin.ClientWithResponses {
	t.Helper()
	return newClient(t, gatewayadmin.WithRequestEditorFn(withAdminToken(env(t, "GATEWAY_ADMIN_TOKEN"))))
}

func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

// rootPackageVersion is the gateway's version: the root package.json's "version".
func rootPackageVersion(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile("../package.json")
	if err != nil {
		t.Fatalf("read ../package.json: %v", err)
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(raw, &pkg); err != nil {
		t.Fatalf("parse ../package.json: %v", err)
	}
	if pkg.Version == "" {
		t.Fatal("../package.json has no version")
	}
	return pkg.Version
}

// expectError checks a non-success answer: the status, the ErrorView JSON in the raw body and its code.
func expectError(t *testing.T, status int, wantStatus int, body []byte, wantCode string) gatewayadmin.ErrorView {
	t.Helper()
	if status != wantStatus {
		t.Fatalf("status = %d, want %d (body %s)", status, wantStatus, body)
	}
	var view gatewayadmin.ErrorView
	if err := json.Unmarshal(body, &view); err != nil {
		t.Fatalf("body is not an ErrorView: %v (body %s)", err, body)
	}
	if view.Error.Code != wantCode {
		t.Fatalf("error.code = %q, want %q (body %s)", view.Error.Code, wantCode, body)
	}
	if view.Error.Message == "" {
		t.Fatalf("error.message is empty (body %s)", body)
	}
	return view
}

func TestInfo(t *testing.T) {
	resp, err := adminClient(t).GetApiV1AdminInfoWithResponse(ctx(t))
	if err != nil {
		t.Fatalf("GetApiV1AdminInfoWithResponse: %v", err)
	}
	if resp.StatusCode() != 200 || resp.JSON200 == nil {
		t.Fatalf("status = %d, JSON200 = %v (body %s)", resp.StatusCode(), resp.JSON200, resp.Body)
	}
	if resp.JSON401 != nil {
		t.Fatalf("JSON401 = %+v on a 200", resp.JSON401)
	}
	if got := resp.ContentType(); !strings.HasPrefix(got, "application/json") {
		t.Fatalf("content type = %q", got)
	}
	info := resp.JSON200

	if want := rootPackageVersion(t); info.Version != want {
		t.Fatalf("version = %q, want %q (the root package.json version)", info.Version, want)
	}

	wantModels := []gatewayadmin.ModelView{
		{Name: "demo", Provider: "demo", Protocol: gatewayadmin.Openai, UpstreamModel: "demo-echo"},
		{Name: "demo-claude", Provider: "demo-anthropic", Protocol: gatewayadmin.Anthropic, UpstreamModel: "demo-echo"},
	}
	if !reflect.DeepEqual(info.Topology.Models, wantModels) {
		t.Fatalf("topology.models = %+v, want %+v", info.Topology.Models, wantModels)
	}
	wantPools := []gatewayadmin.PoolView{{
		Name: "demo-pool",
		Members: []gatewayadmin.PoolMemberView{
			{Model: "demo", Weight: 2, Provider: "demo", Protocol: gatewayadmin.Openai},
			{Model: "demo-claude", Weight: 1, Provider: "demo-anthropic", Protocol: gatewayadmin.Anthropic},
		},
	}}
	if !reflect.DeepEqual(info.Topology.Pools, wantPools) {
		t.Fatalf("topology.pools = %+v, want %+v", info.Topology.Pools, wantPools)
	}
	for _, m := range info.Topology.Models {
		if !m.Protocol.Valid() {
			t.Fatalf("model %q has an unknown protocol %q", m.Name, m.Protocol)
		}
	}

	if info.UptimeSeconds < 0 || info.UptimeSeconds > 600 {
		t.Fatalf("uptime_seconds = %v, want a value in [0, 600] for a gateway started for this test run", info.UptimeSeconds)
	}
	if !configVersionPattern.MatchString(info.ConfigVersion) {
		t.Fatalf("config_version = %q, want cfg_ + 16 hex digits", info.ConfigVersion)
	}
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(info.Build.Node) {
		t.Fatalf("build.node = %q, want a Node.js version like 24.1.0", info.Build.Node)
	}
	for _, module := range []string{
		"admin", "protocol:openai", "protocol:responses", "protocol:anthropic",
		"protocol:gemini", "protocol:bedrock", "protocol:cohere",
	} {
		if !slices.Contains(info.Build.Modules, module) {
			t.Fatalf("build.modules = %v, missing %q", info.Build.Modules, module)
		}
	}
}

func TestConfigVersionMatchesInfo(t *testing.T) {
	client := adminClient(t)
	resp, err := client.GetApiV1AdminConfigVersionWithResponse(ctx(t))
	if err != nil {
		t.Fatalf("GetApiV1AdminConfigVersionWithResponse: %v", err)
	}
	if resp.StatusCode() != 200 || resp.JSON200 == nil {
		t.Fatalf("status = %d, JSON200 = %v (body %s)", resp.StatusCode(), resp.JSON200, resp.Body)
	}
	version := resp.JSON200
	if !configVersionPattern.MatchString(version.ConfigVersion) {
		t.Fatalf("config_version = %q, want cfg_ + 16 hex digits", version.ConfigVersion)
	}
	if age := time.Since(version.LoadedAt); age < 0 || age > 10*time.Minute {
		t.Fatalf("loaded_at = %v (%v ago), want the start of this test run", version.LoadedAt, age)
	}

	info, err := client.GetApiV1AdminInfoWithResponse(ctx(t))
	if err != nil || info.JSON200 == nil {
		t.Fatalf("info: err %v, status %d", err, info.StatusCode())
	}
	if info.JSON200.ConfigVersion != version.ConfigVersion {
		t.Fatalf("info config_version %q != config/version %q", info.JSON200.ConfigVersion, version.ConfigVersion)
	}
}

func TestKeyLifecycle(t *testing.T) {
	client := adminClient(t)
	name, owner, budget, rpm := "go-client-test", "team-go", 500, 60

	// create: 201 with the secret, shown once
	created, err := client.PostApiV1AdminKeysWithResponse(ctx(t), gatewayadmin.KeyCreate{
		Name: &name, Owner: &owner, BudgetCents: &budget, Rpm: &rpm,
	})
	if err != nil {
		t.Fatalf("PostApiV1AdminKeysWithResponse: %v", err)
	}
	if created.StatusCode() != 201 || created.JSON201 == nil {
		t.Fatalf("create: status = %d, JSON201 = %v (body %s)", created.StatusCode(), created.JSON201, created.Body)
	}
	key := created.JSON201
	if !strings.HasPrefix(key.Secret, "gwk_") || !secretPattern.MatchString(key.Secret) {
		t.Fatalf("secret = %q, want gwk_ + 43 base64url characters", key.Secret)
	}
	if key.Prefix != key.Secret[:8] {
		t.Fatalf("prefix = %q, want the secret's first 8 characters %q", key.Prefix, key.Secret[:8])
	}
	if !keyIDPattern.MatchString(key.Id) {
		t.Fatalf("id = %q, want key_ + 26 characters", key.Id)
	}
	zero, remainingUsd := "0.00000000", "5.00000000"
	want := gatewayadmin.KeyView{
		Id: key.Id, Name: &name, Owner: &owner, Prefix: key.Prefix,
		BudgetCents: &budget, SpentCents: 0, SpentUsd: zero, LifetimeSpentCents: 0, LifetimeSpentUsd: zero,
		ReservedCents: 0, ReservedUsd: zero, RemainingCents: &budget, RemainingUsd: &remainingUsd, Rpm: &rpm,
		Metadata: gatewayadmin.KeyMetadata{}, SelfServe: false,
		CreatedAt: key.CreatedAt, LastUsedAt: nil, RevokedAt: nil,
	}
	// KeyCreated is KeyView plus the secret: the same fields, copied over by their JSON.
	var createdView gatewayadmin.KeyView
	if raw, err := json.Marshal(key); err != nil || json.Unmarshal(raw, &createdView) != nil {
		t.Fatalf("KeyCreated does not read back as a KeyView: %v", err)
	}
	if !reflect.DeepEqual(createdView, want) {
		t.Fatalf("created key = %s, want %s", jsonString(createdView), jsonString(want))
	}
	if age := time.Since(key.CreatedAt); age < -time.Minute || age > time.Minute {
		t.Fatalf("created_at = %v, want now", key.CreatedAt)
	}

	// list: the key is there, and no secret is anywhere in the answer
	list, err := client.GetApiV1AdminKeysWithResponse(ctx(t))
	if err != nil {
		t.Fatalf("GetApiV1AdminKeysWithResponse: %v", err)
	}
	if list.StatusCode() != 200 || list.JSON200 == nil {
		t.Fatalf("list: status = %d (body %s)", list.StatusCode(), list.Body)
	}
	if strings.Contains(string(list.Body), key.Secret) || strings.Contains(string(list.Body), `"secret"`) {
		t.Fatalf("the key list shows a secret: %s", list.Body)
	}
	idx := slices.IndexFunc(list.JSON200.Data, func(k gatewayadmin.KeyView) bool { return k.Id == key.Id })
	if idx < 0 {
		t.Fatalf("the key list has no %s: %s", key.Id, list.Body)
	}
	if got := list.JSON200.Data[idx]; !reflect.DeepEqual(got, want) {
		t.Fatalf("listed key = %s, want %s", jsonString(got), jsonString(want))
	}

	// get: the same record, no secret
	got, err := client.GetApiV1AdminKeysIdWithResponse(ctx(t), key.Id)
	if err != nil {
		t.Fatalf("GetApiV1AdminKeysIdWithResponse: %v", err)
	}
	if got.StatusCode() != 200 || got.JSON200 == nil {
		t.Fatalf("get: status = %d (body %s)", got.StatusCode(), got.Body)
	}
	if !reflect.DeepEqual(*got.JSON200, want) {
		t.Fatalf("got key = %s, want %s", jsonString(*got.JSON200), jsonString(want))
	}
	if strings.Contains(string(got.Body), `"secret"`) {
		t.Fatalf("get shows a secret: %s", got.Body)
	}

	// revoke: the revoked record; revoking again is harmless and keeps the first revocation time
	revoked, err := client.DeleteApiV1AdminKeysIdWithResponse(ctx(t), key.Id)
	if err != nil {
		t.Fatalf("DeleteApiV1AdminKeysIdWithResponse: %v", err)
	}
	if revoked.StatusCode() != 200 || revoked.JSON200 == nil {
		t.Fatalf("revoke: status = %d (body %s)", revoked.StatusCode(), revoked.Body)
	}
	if revoked.JSON200.RevokedAt == nil {
		t.Fatalf("revoked_at is null after a revoke: %s", revoked.Body)
	}
	if age := time.Since(*revoked.JSON200.RevokedAt); age < -time.Minute || age > time.Minute {
		t.Fatalf("revoked_at = %v, want now", *revoked.JSON200.RevokedAt)
	}
	wantRevoked := want
	wantRevoked.RevokedAt = revoked.JSON200.RevokedAt
	if !reflect.DeepEqual(*revoked.JSON200, wantRevoked) {
		t.Fatalf("revoked key = %s, want %s", jsonString(*revoked.JSON200), jsonString(wantRevoked))
	}

	again, err := client.DeleteApiV1AdminKeysIdWithResponse(ctx(t), key.Id)
	if err != nil {
		t.Fatalf("second revoke: %v", err)
	}
	if again.StatusCode() != 200 || again.JSON200 == nil || again.JSON200.RevokedAt == nil ||
		!again.JSON200.RevokedAt.Equal(*revoked.JSON200.RevokedAt) {
		t.Fatalf("second revoke: status = %d (body %s), want 200 with the first revoked_at", again.StatusCode(), again.Body)
	}

	after, err := client.GetApiV1AdminKeysIdWithResponse(ctx(t), key.Id)
	if err != nil || after.JSON200 == nil {
		t.Fatalf("get after revoke: err %v, status %d", err, after.StatusCode())
	}
	if !reflect.DeepEqual(*after.JSON200, wantRevoked) {
		t.Fatalf("key after revoke = %s, want %s", jsonString(*after.JSON200), jsonString(wantRevoked))
	}
}

func TestCreateKeyWithNoFields(t *testing.T) {
	created, err := adminClient(t).PostApiV1AdminKeysWithResponse(ctx(t), gatewayadmin.KeyCreate{})
	if err != nil {
		t.Fatalf("PostApiV1AdminKeysWithResponse: %v", err)
	}
	if created.StatusCode() != 201 || created.JSON201 == nil {
		t.Fatalf("status = %d (body %s)", created.StatusCode(), created.Body)
	}
	key := created.JSON201
	if key.Name != nil || key.Owner != nil || key.BudgetCents != nil || key.RemainingCents != nil || key.Rpm != nil {
		t.Fatalf("a key created from {} has limits or labels: %s", created.Body)
	}
	if key.SpentCents != 0 || key.RevokedAt != nil || key.LastUsedAt != nil || !secretPattern.MatchString(key.Secret) {
		t.Fatalf("unexpected key: %s", created.Body)
	}
}

func TestCreateKeyRejectsInvalidBody(t *testing.T) {
	zero := 0
	resp, err := adminClient(t).PostApiV1AdminKeysWithResponse(ctx(t), gatewayadmin.KeyCreate{Rpm: &zero})
	if err != nil {
		t.Fatalf("PostApiV1AdminKeysWithResponse: %v", err)
	}
	if resp.JSON201 != nil {
		t.Fatalf("JSON201 = %+v for rpm 0", resp.JSON201)
	}
	view := expectError(t, resp.StatusCode(), 400, resp.Body, "invalid_request")
	if resp.JSON400 == nil || !reflect.DeepEqual(*resp.JSON400, view) {
		t.Fatalf("JSON400 = %+v, want %+v", resp.JSON400, view)
	}
	if !strings.Contains(view.Error.Message, "rpm") {
		t.Fatalf("error.message = %q does not name the field rpm", view.Error.Message)
	}
}

func TestUnauthorized(t *testing.T) {
	for name, client := range map[string]*gatewayadmin.ClientWithResponses{
		"no token":    newClient(t),
		"wrong token": newClient(t, gatewayadmin.WithRequestEditorFn(withAdminToken("not-the-admin-token"))),
	} {
		t.Run(name, func(t *testing.T) {
			resp, err := client.GetApiV1AdminInfoWithResponse(ctx(t))
			if err != nil {
				t.Fatalf("GetApiV1AdminInfoWithResponse: %v", err)
			}
			if resp.JSON200 != nil {
				t.Fatalf("JSON200 = %+v without a valid token", resp.JSON200)
			}
			view := expectError(t, resp.StatusCode(), 401, resp.Body, "unauthorized")
			if resp.JSON401 == nil || !reflect.DeepEqual(*resp.JSON401, view) {
				t.Fatalf("JSON401 = %+v, want %+v", resp.JSON401, view)
			}
		})
	}

	t.Run("key creation", func(t *testing.T) {
		resp, err := newClient(t).PostApiV1AdminKeysWithResponse(ctx(t), gatewayadmin.KeyCreate{})
		if err != nil {
			t.Fatalf("PostApiV1AdminKeysWithResponse: %v", err)
		}
		if resp.JSON201 != nil {
			t.Fatalf("a key was created without a token: %s", resp.Body)
		}
		expectError(t, resp.StatusCode(), 401, resp.Body, "unauthorized")
	})
}

func TestBearerToken(t *testing.T) {
	token := env(t, "GATEWAY_ADMIN_TOKEN")
	client := newClient(t, gatewayadmin.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+token)
		return nil
	}))
	resp, err := client.GetApiV1AdminConfigVersionWithResponse(ctx(t))
	if err != nil {
		t.Fatalf("GetApiV1AdminConfigVersionWithResponse: %v", err)
	}
	if resp.StatusCode() != 200 || resp.JSON200 == nil {
		t.Fatalf("status = %d (body %s)", resp.StatusCode(), resp.Body)
	}
}

func TestUnknownKey(t *testing.T) {
	client := adminClient(t)

	got, err := client.GetApiV1AdminKeysIdWithResponse(ctx(t), unknownKeyID)
	if err != nil {
		t.Fatalf("GetApiV1AdminKeysIdWithResponse: %v", err)
	}
	if got.JSON200 != nil {
		t.Fatalf("JSON200 = %+v for an unknown id", got.JSON200)
	}
	view := expectError(t, got.StatusCode(), 404, got.Body, "not_found")
	if got.JSON404 == nil || !reflect.DeepEqual(*got.JSON404, view) {
		t.Fatalf("JSON404 = %+v, want %+v", got.JSON404, view)
	}
	if !strings.Contains(view.Error.Message, unknownKeyID) {
		t.Fatalf("error.message = %q does not name the id", view.Error.Message)
	}

	revoked, err := client.DeleteApiV1AdminKeysIdWithResponse(ctx(t), unknownKeyID)
	if err != nil {
		t.Fatalf("DeleteApiV1AdminKeysIdWithResponse: %v", err)
	}
	if revoked.JSON200 != nil {
		t.Fatalf("JSON200 = %+v for revoking an unknown id", revoked.JSON200)
	}
	expectError(t, revoked.StatusCode(), 404, revoked.Body, "not_found")
}

func TestServedSpecIsTheGeneratedOne(t *testing.T) {
	resp, err := adminClient(t).GetApiV1AdminOpenapiJsonWithResponse(ctx(t))
	if err != nil {
		t.Fatalf("GetApiV1AdminOpenapiJsonWithResponse: %v", err)
	}
	if resp.StatusCode() != 200 || resp.JSON200 == nil {
		t.Fatalf("status = %d", resp.StatusCode())
	}
	raw, err := os.ReadFile("../spec/openapi.json")
	if err != nil {
		t.Fatalf("read ../spec/openapi.json: %v", err)
	}
	var spec map[string]any
	if err := json.Unmarshal(raw, &spec); err != nil {
		t.Fatalf("parse ../spec/openapi.json: %v", err)
	}
	if !reflect.DeepEqual(*resp.JSON200, spec) {
		t.Fatal("the served OpenAPI document differs from spec/openapi.json (the client is generated from the latter)")
	}
}

func TestDataPlaneHealthz(t *testing.T) {
	// /healthz is served on the data plane: point a client at GATEWAY_DATA_URL.
	client, err := gatewayadmin.NewClientWithResponses(env(t, "GATEWAY_DATA_URL"))
	if err != nil {
		t.Fatalf("NewClientWithResponses: %v", err)
	}
	resp, err := client.GetHealthzWithResponse(ctx(t))
	if err != nil {
		t.Fatalf("GetHealthzWithResponse: %v", err)
	}
	if resp.StatusCode() != 200 || resp.JSON200 == nil || resp.JSON200.Status != gatewayadmin.Ok {
		t.Fatalf("status = %d (body %s), want 200 {\"status\":\"ok\"}", resp.StatusCode(), resp.Body)
	}
}

func TestDataPlaneAuthTokenWithoutSelfServeKeys(t *testing.T) {
	// POST /auth/token is served on the data plane; the live gateway has no auth.oidc: a 404 ErrorView.
	client, err := gatewayadmin.NewClientWithResponses(env(t, "GATEWAY_DATA_URL"))
	if err != nil {
		t.Fatalf("NewClientWithResponses: %v", err)
	}
	resp, err := client.PostAuthTokenWithResponse(ctx(t), gatewayadmin.TokenExchange{IdToken: "a.b.c"})
	if err != nil {
		t.Fatalf("PostAuthTokenWithResponse: %v", err)
	}
	if resp.StatusCode() != 404 || resp.JSON404 == nil || resp.JSON404.Error.Code != "self_serve_disabled" {
		t.Fatalf("status = %d (body %s), want 404 with code self_serve_disabled", resp.StatusCode(), resp.Body)
	}
}

func jsonString(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(raw)
}
