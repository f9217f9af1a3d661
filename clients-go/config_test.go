// The configuration operations against the live gateway (run from a config file with a store):
// the running configuration masked, its history, and validate with a YAML body. Nothing is changed.
package gatewayadmin_test

import (
	"regexp"
	"strings"
	"testing"

	gatewayadmin "github.com/gateway/gateway/clients-go"
)

func TestConfigShowAndVersions(t *testing.T) {
	c := adminClient(t)
	view, err := c.GetApiV1AdminConfigWithResponse(ctx(t))
	if err != nil || view.JSON200 == nil {
		t.Fatalf("GetApiV1AdminConfigWithResponse: %v (status %d, body %s)", err, view.StatusCode(), view.Body)
	}
	if view.JSON200.Version != 1 || !strings.Contains(view.JSON200.Yaml, "/gate?token=***") || strings.Contains(string(view.Body), "live-hook-secret") {
		t.Fatalf("config view = %s", view.Body)
	}
	list, err := c.GetApiV1AdminConfigVersionsWithResponse(ctx(t))
	if err != nil || list.JSON200 == nil {
		t.Fatalf("GetApiV1AdminConfigVersionsWithResponse: %v", err)
	}
	if !list.JSON200.Stored || len(list.JSON200.Data) != 1 || list.JSON200.Data[0].Trigger != gatewayadmin.ConfigVersionEntryTriggerStart || list.JSON200.Data[0].ConfigVersion != view.JSON200.ConfigVersion {
		t.Fatalf("versions = %s", list.Body)
	}
}

func TestConfigValidateYamlBody(t *testing.T) {
	resp, err := adminClient(t).PostApiV1AdminConfigValidateWithBodyWithResponse(ctx(t), "application/yaml", strings.NewReader("models: { x: { provider: nowhere, model: m } }\n"))
	if err != nil || resp.JSON200 == nil {
		t.Fatalf("PostApiV1AdminConfigValidateWithBodyWithResponse: %v (status %d)", err, resp.StatusCode())
	}
	problem := regexp.MustCompile(`config\.yaml:1:\d+: models\.x\.provider: unknown provider "nowhere"`)
	if resp.JSON200.Valid || !problem.MatchString(strings.Join(resp.JSON200.Problems, "\n")) {
		t.Fatalf("validation = %s", resp.Body)
	}
}
