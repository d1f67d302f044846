package webhooktest

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/server/webhook"
)

// TestWebhookAppliedOnce: a valid delivery delivered three times runs its
// handler once and answers 2xx every time, per scheme.
func TestWebhookAppliedOnce(t *testing.T) {
	for _, sc := range schemes {
		t.Run(sc.name, func(t *testing.T) {
			srv, s := newReceiver(t, sc.option(sc.new))
			body := event("evt_1")
			for i := 0; i < 3; i++ {
				a := post(t, srv.URL+"/hooks/paymentSucceeded", sc.sign(sc.new, "evt_1", clockNow, body), body)
				if a.status != http.StatusNoContent {
					t.Fatalf("delivery %d: %d %s", i+1, a.status, a.body)
				}
				if replayed := a.header.Get("Idempotent-Replayed") == "true"; replayed != (i > 0) {
					t.Errorf("delivery %d: Idempotent-Replayed %v", i+1, replayed)
				}
			}
			if got := s.applied(t)["paymentSucceeded"]; got != 1 || s.calls.Load() != 1 {
				t.Fatalf("applied %d rows in %d calls, want 1", got, s.calls.Load())
			}
		})
	}
}

// TestWebhookRefusals: a wrong signature, a stale timestamp and a key
// rotated out are refused 401 with nothing applied; a key still in
// rotation is accepted.
func TestWebhookRefusals(t *testing.T) {
	for _, sc := range schemes {
		t.Run(sc.name, func(t *testing.T) {
			srv, s := newReceiver(t, sc.option(sc.new))
			url := srv.URL + "/hooks/paymentSucceeded"
			body := event("evt_2")
			wrong := sc.sign(sc.new, "evt_2", clockNow, body)
			for k := range wrong {
				if k != "X-Github-Delivery" && k != "Webhook-Id" && k != "Webhook-Timestamp" {
					wrong.Set(k, wrong.Get(k)[:len(wrong.Get(k))-4]+"AAAA")
				}
			}
			cases := map[string]http.Header{
				"wrong signature": wrong,
				"rotated-out key": sc.sign(sc.old, "evt_2", clockNow, body),
				"tampered body":   sc.sign(sc.new, "evt_2", clockNow, event("evt_3")),
				"unsigned":        {},
			}
			if sc.stamped {
				cases["stale timestamp"] = sc.sign(sc.new, "evt_2", clockNow.Add(-5*time.Minute-time.Second), body)
				cases["future timestamp"] = sc.sign(sc.new, "evt_2", clockNow.Add(6*time.Minute), body)
			}
			for name, h := range cases {
				a := post(t, url, h, body)
				if a.status != http.StatusUnauthorized || !strings.Contains(a.body, "webhook-") {
					t.Errorf("%s: %d %s, want 401 problem", name, a.status, a.body)
				}
			}
			if n := s.total(t); n != 0 || s.calls.Load() != 0 {
				t.Fatalf("refused deliveries applied %d rows", n)
			}
			srv2, s2 := newReceiver(t, sc.option(sc.new, sc.old))
			if a := post(t, srv2.URL+"/hooks/paymentSucceeded", sc.sign(sc.old, "evt_2", clockNow, body), body); a.status != http.StatusNoContent {
				t.Fatalf("a key in rotation: %d %s", a.status, a.body)
			}
			if n := s2.total(t); n != 1 {
				t.Fatalf("applied %d", n)
			}
		})
	}
}

// TestWebhookHandlerFailure: a failing handler is answered 500 without its
// text, rolled back, and applied once on redelivery.
func TestWebhookHandlerFailure(t *testing.T) {
	for _, sc := range schemes {
		t.Run(sc.name, func(t *testing.T) {
			srv, s := newReceiver(t, sc.option(sc.new))
			body := event("evt_4")
			h := sc.sign(sc.new, "evt_4", clockNow, body)
			s.failNext.Store(true)
			a := post(t, srv.URL+"/hooks/paymentSucceeded", h, body)
			if a.status != http.StatusInternalServerError || a.header.Get("Content-Type") != "application/problem+json" || strings.Contains(a.body, "secret") {
				t.Fatalf("failure answered %d %q %s", a.status, a.header.Get("Content-Type"), a.body)
			}
			if n := s.total(t); n != 0 {
				t.Fatalf("the failed delivery left %d rows", n)
			}
			for i := 0; i < 2; i++ {
				if a := post(t, srv.URL+"/hooks/paymentSucceeded", h, body); a.status != http.StatusNoContent {
					t.Fatalf("redelivery: %d %s", a.status, a.body)
				}
			}
			if n := s.total(t); n != 1 || s.calls.Load() != 2 {
				t.Fatalf("applied %d rows in %d calls, want 1 in 2", n, s.calls.Load())
			}
		})
	}
}

// TestWebhookRouting: by the path's last segment, by X-GitHub-Event and by
// the payload's type on the root; anything else 404 with nothing applied.
func TestWebhookRouting(t *testing.T) {
	srv, s := newReceiver(t, webhook.WithStandardWebhooks(schemes[0].new))
	sign := func(id, body string) http.Header { return signStandard(schemes[0].new, id, clockNow, body) }
	failed := `{"id":"e","type":"payment.failed","amount":1}`
	cases := []struct {
		path, id, body, githubEvent string
		status                      int
		webhook                     string
	}{
		{"/hooks/paymentFailed", "r1", failed, "", 204, "paymentFailed"},
		{"/hooks/", "r2", event("x"), "", 204, "paymentSucceeded"},
		{"/hooks/", "r3", event("x"), "paymentFailed", 204, "paymentFailed"},
		{"/hooks/", "r4", failed, "", 404, ""},
		{"/hooks/", "r5", `{"amount":1}`, "", 404, ""},
		{"/hooks/", "r6", event("x"), "push", 404, ""},
		{"/hooks/nope", "r7", event("x"), "", 404, ""},
		{"/hooks/paymentSucceeded/", "r8", failed, "", 404, ""},
	}
	want := map[string]int{}
	for _, c := range cases {
		h := sign(c.id, c.body)
		if c.githubEvent != "" {
			h.Set("X-GitHub-Event", c.githubEvent)
		}
		a := post(t, srv.URL+c.path, h, c.body)
		if a.status != c.status {
			t.Errorf("%s %s: %d %s, want %d", c.path, c.body, a.status, a.body, c.status)
		}
		if c.webhook != "" {
			want[c.webhook]++
		}
	}
	s.wantApplied(t, want)
}

// TestWebhookHostile: an oversized body, deep JSON, garbage headers and a
// wrong method are refused before any handler runs.
func TestWebhookHostile(t *testing.T) {
	srv, s := newReceiver(t, webhook.WithStandardWebhooks(schemes[0].new), webhook.WithLimits(4096, time.Second))
	url := srv.URL + "/hooks/paymentSucceeded"
	key := schemes[0].new
	big := `{"id":"x","pad":"` + strings.Repeat("a", 5000) + `"}`
	deep := `{"id":"x","amount":1,"x":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`
	garbage := func(k, v string) http.Header {
		h := signStandard(key, "g", clockNow, event("g"))
		h.Set(k, v)
		return h
	}
	for _, c := range []struct {
		name   string
		h      http.Header
		body   string
		status int
	}{
		{"oversized", signStandard(key, "b", clockNow, big), big, 413},
		{"deep JSON", signStandard(key, "d", clockNow, deep), deep, 400},
		{"not JSON", signStandard(key, "n", clockNow, "{"), "{", 400},
		{"timestamp not a number", garbage("webhook-timestamp", "soon"), event("g"), 400},
		{"signature garbage", garbage("webhook-signature", "v1,%%% ,,, v1"), event("g"), 401},
		{"id over 255 bytes", signStandard(key, strings.Repeat("i", 300), clockNow, event("g")), event("g"), 400},
		{"empty body", signStandard(key, "e", clockNow, ""), "", 400},
	} {
		if a := post(t, url, c.h, c.body); a.status != c.status || a.header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: %d %q %s, want %d problem", c.name, a.status, a.header.Get("Content-Type"), a.body, c.status)
		}
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d", resp.StatusCode)
	}
	if s.calls.Load() != 0 {
		t.Fatalf("hostile deliveries ran the handler %d times", s.calls.Load())
	}
}

// TestWebhookReceiverRefusesUnsafeConfig: no signature scheme and no
// ledger are refused unless said explicitly.
func TestWebhookReceiverRefusesUnsafeConfig(t *testing.T) {
	var routes []webhook.Route
	if _, err := webhook.NewReceiver(routes, webhook.WithoutDedupe()); err != webhook.ErrNoVerification {
		t.Errorf("no scheme: %v", err)
	}
	if _, err := webhook.NewReceiver(routes, webhook.WithGitHubSignature("s")); err != webhook.ErrNoLedger {
		t.Errorf("no ledger: %v", err)
	}
	if _, err := webhook.NewReceiver(routes, webhook.WithoutVerification(), webhook.WithoutDedupe()); err != nil {
		t.Errorf("both left out explicitly: %v", err)
	}
	for name, opts := range map[string][]webhook.Option{
		"bad standard secret": {webhook.WithStandardWebhooks("whsec_***"), webhook.WithoutDedupe()},
		"no secret":           {webhook.WithStripeSignature(), webhook.WithoutDedupe()},
		"two schemes":         {webhook.WithStripeSignature("a"), webhook.WithGitHubSignature("b"), webhook.WithoutDedupe()},
	} {
		if _, err := webhook.NewReceiver(routes, opts...); err == nil || !strings.Contains(err.Error(), "invalid webhook receiver configuration") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestGitHubFormDelivery: GitHub's application/x-www-form-urlencoded
// content type (payload=<JSON>) is verified over the raw form body and
// decoded from its payload field; other senders never send forms (415).
func TestGitHubFormDelivery(t *testing.T) {
	srv, s := newReceiver(t, webhook.WithGitHubSignature("new secret"))
	form := func(h http.Header, body string) answer {
		t.Helper()
		return postAs(t, srv.URL+"/hooks/paymentSucceeded", h, "application/x-www-form-urlencoded", body)
	}
	body := "payload=" + url.QueryEscape(event("g1"))
	if a := form(signGitHub("new secret", "d1", clockNow, body), body); a.status != 204 {
		t.Fatalf("a signed form delivery: %d %s", a.status, a.body)
	}
	if a := form(signGitHub("new secret", "d1", clockNow, body), body); a.status != 204 || a.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("its redelivery: %d %v", a.status, a.header)
	}
	if a := form(signGitHub("other secret", "d2", clockNow, body), body); a.status != 401 {
		t.Errorf("a form signed with another secret: %d %s", a.status, a.body)
	}
	for _, bad := range []string{"other=1", "payload=1&payload=2", "payload=%zz"} {
		if a := form(signGitHub("new secret", "d3", clockNow, bad), bad); a.status != 400 {
			t.Errorf("form %q: %d %s, want 400", bad, a.status, a.body)
		}
	}
	if got := s.applied(t); got["paymentSucceeded"] != 1 || s.total(t) != 1 {
		t.Errorf("applied %v, want paymentSucceeded once", got)
	}
	std, _ := newReceiver(t, webhook.WithStandardWebhooks(schemes[0].new))
	resp := postAs(t, std.URL+"/hooks/paymentSucceeded", nil, "application/x-www-form-urlencoded", body)
	if resp.status != http.StatusUnsupportedMediaType {
		t.Errorf("a form to a Standard Webhooks receiver: %d, want 415", resp.status)
	}
}
