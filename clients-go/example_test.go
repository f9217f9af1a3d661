package gatewayadmin_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"

	gatewayadmin "github.com/gateway/gateway/clients-go"
)

// Compiled with the tests (it has no Output comment, so it is not run): the README's example.
func Example() {
	token := os.Getenv("GATEWAY_ADMIN_TOKEN")
	client, err := gatewayadmin.NewClientWithResponses("http://127.0.0.1:8081",
		gatewayadmin.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			req.Header.Set("x-admin-token", token)
			return nil
		}))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	info, err := client.GetApiV1AdminInfoWithResponse(ctx)
	if err != nil {
		log.Fatal(err) // transport error: no answer at all
	}
	if info.JSON200 == nil { // any other status: the code and the ErrorView body are still there
		log.Fatalf("info: %d %s", info.StatusCode(), info.Body)
	}
	fmt.Println(info.JSON200.Version, len(info.JSON200.Topology.Models))

	name, budget, rpm := "ci-bot", 5000, 60
	created, err := client.PostApiV1AdminKeysWithResponse(ctx, gatewayadmin.KeyCreate{
		Name: &name, BudgetCents: &budget, Rpm: &rpm,
	})
	if err != nil {
		log.Fatal(err)
	}
	if created.JSON201 == nil {
		log.Fatalf("create key: %d %s", created.StatusCode(), created.Body)
	}
	fmt.Println(created.JSON201.Id, created.JSON201.Secret) // the secret is shown this once
}
