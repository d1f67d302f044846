package generator

import (
	"path/filepath"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/parser"
)

// openAIWebhookTest is compiled into the generated OpenAI package: a
// batch.completed event, signed as Standard Webhooks the way OpenAI signs
// its deliveries, posted to the receiver's root, reaches BatchCompleted
// (routed by the payload's type) once, and a repeat does not.
const openAIWebhookTest = `package openai_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"example.com/gentest/openai"
	"github.com/idemgen/idemgen/server/webhook"
)

type batches struct {
	openai.WebhookHandler
	done []string
}

func (b *batches) BatchCompleted(_ context.Context, body openai.WebhookBatchCompleted) error {
	b.done = append(b.done, body.Data.ID)
	return nil
}

func TestOpenAIWebhook(t *testing.T) {
	key := []byte("thirty-two bytes of webhook key!")
	now := time.Unix(1_750_000_000, 0)
	h := &batches{}
	rc, err := openai.NewWebhookReceiver(h, webhook.WithoutDedupe(),
		webhook.WithStandardWebhooks("whsec_"+base64.StdEncoding.EncodeToString(key)),
		webhook.WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	body := ` + "`" + `{"id":"evt_1","object":"event","type":"batch.completed","created_at":1750000000,"data":{"id":"batch_1"}}` + "`" + `
	ts := strconv.FormatInt(now.Unix(), 10)
	m := hmac.New(sha256.New, key)
	m.Write([]byte("wh_1." + ts + "." + body))
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("webhook-id", "wh_1")
	req.Header.Set("webhook-timestamp", ts)
	req.Header.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(m.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || len(h.done) != 1 || h.done[0] != "batch_1" {
		t.Fatalf("status %d, applied %v", resp.StatusCode, h.done)
	}
}
`

// TestRealWorldWebhookReceivers generates the real documents that declare
// webhooks with Server set (OpenAI's 3.1 webhooks; GitHub's description
// here is 1.1.4, which carries no x-webhooks), then builds, vets and runs
// a delivery through OpenAI's receiver. Skipped under -short.
func TestRealWorldWebhookReceivers(t *testing.T) {
	dir := testutil.RealSpecs(t, "generates and compiles OpenAI's webhook receiver")
	pkgs := map[string][]File{}
	for _, name := range []string{"openai.yaml", "github-api.json"} {
		api, diags, err := parser.Load(filepath.Join(dir, name), parser.Options{})
		if err != nil || diags.HasErrors() {
			t.Fatalf("%s: %v %v", name, err, diags.Errors())
		}
		pkg := packageName(name[:len(name)-len(filepath.Ext(name))])
		out, err := Generate(api, Config{Package: pkg, Server: true})
		if err != nil {
			t.Fatal(err)
		}
		has := false
		for _, f := range out.Files {
			has = has || f.Name == "webhook_receiver_gen.go"
		}
		t.Logf("%s: %d webhooks", name, len(api.Webhooks))
		if want := len(api.Webhooks) > 0; has != want || (pkg == "openai" && len(api.Webhooks) < 16) {
			t.Fatalf("%s: %d webhooks, receiver written %v", name, len(api.Webhooks), has)
		}
		if has {
			pkgs[pkg] = append(out.Files, File{Name: "webhook_test.go", Content: []byte(openAIWebhookTest)})
		}
	}
	mod := writeModule(t, pkgs)
	for _, step := range [][]string{{"vet", "./..."}, {"test", "-count=1", "-run", "TestOpenAIWebhook", "./..."}} {
		if out, err := goTool(mod, step...); err != nil {
			t.Errorf("go %s: %v\n%s", step[0], err, truncate(out, 4000))
		}
	}
}
