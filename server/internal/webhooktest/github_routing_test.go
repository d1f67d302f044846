package webhooktest

import (
	"testing"

	"github.com/idemgen/idemgen/server/webhook"
)

// githubRoutes are webhooks named as GitHub's OpenAPI description names
// them: "<event>-<action>" in kebab case, or the event alone when it has
// no actions.
func githubRoutes(s *sink) []webhook.Route {
	var routes []webhook.Route
	for _, name := range []string{"pull-request-opened", "pull-request-auto-merge-disabled", "push",
		"installation-new-permissions-accepted", "issues"} {
		routes = append(routes, webhook.NewRoute(name, "", s.apply(name)))
	}
	return routes
}

// TestGitHubEventAndActionRouting: a GitHub delivery to the receiver's root
// reaches the webhook its X-GitHub-Event and payload action name, the way
// GitHub's description names webhooks; an action no webhook names is 404
// unless a webhook is named after the event alone; nothing else runs.
func TestGitHubEventAndActionRouting(t *testing.T) {
	srv, s := newReceiverOf(t, githubRoutes, webhook.WithGitHubSignature("gh"))
	cases := []struct {
		event, body string
		status      int
		webhook     string
	}{
		{"pull_request", `{"action":"opened","number":1}`, 204, "pull-request-opened"},
		{"pull_request", `{"action":"auto_merge_disabled","number":2}`, 204, "pull-request-auto-merge-disabled"},
		{"installation", `{"action":"new_permissions_accepted"}`, 204, "installation-new-permissions-accepted"},
		{"push", `{"ref":"refs/heads/main"}`, 204, "push"},
		{"issues", `{"action":"opened"}`, 204, "issues"},
		{"pull_request", `{"action":"closed","number":3}`, 404, ""},
		{"pull_request", `{"action":{"opened":true}}`, 404, ""},
		{"pull_request", `{"number":4}`, 404, ""},
		{"star", `{"action":"created"}`, 404, ""},
	}
	want := map[string]int{}
	for i, c := range cases {
		h := signGitHub("gh", "d"+string(rune('a'+i)), clockNow, c.body)
		h.Set("X-GitHub-Event", c.event)
		a := post(t, srv.URL+"/hooks/", h, c.body)
		if a.status != c.status {
			t.Errorf("%s %s: %d %s, want %d", c.event, c.body, a.status, a.body, c.status)
		}
		if c.webhook != "" {
			want[c.webhook]++
		}
	}
	s.wantApplied(t, want)
}
