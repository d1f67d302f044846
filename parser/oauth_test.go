package parser

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// oauthDoc is a document with one oauth2 scheme whose client credentials
// flow has tokenURL (a YAML double-quoted string body).
func oauthDoc(tokenURL string) string {
	return `openapi: 3.0.3
info: {title: t, version: "1"}
paths: {}
components:
  securitySchemes:
    cc:
      type: oauth2
      flows:
        clientCredentials:
          tokenUrl: "` + tokenURL + `"
          scopes: {write: w, read: r}
        authorizationCode:
          authorizationUrl: https://auth.example.com/authorize
          tokenUrl: https://auth.example.com/token
          scopes: {}
`
}

// TestClientCredentialsFlowReadIntoTheIR: the flow's tokenUrl as written
// (absolute, or relative to the server) and its scopes, sorted.
func TestClientCredentialsFlowReadIntoTheIR(t *testing.T) {
	for _, u := range []string{"https://auth.example.com/oauth/token?v=2", "/oauth/token", "token", "//auth.example.com/t"} {
		api, diags := loadHooks(t, oauthDoc(u))
		f := api.SecuritySchemes[0].ClientCredentials
		if f == nil || f.TokenURL != u || !slices.Equal(f.Scopes, []string{"read", "write"}) || len(diags) != 0 {
			t.Errorf("tokenUrl %q: flow %+v, diagnostics %v", u, f, diags)
		}
	}
}

// TestHostileTokenURLRefused: a tokenUrl a client secret must not be sent
// to, or that is no URL, leaves the scheme without the flow, with a
// warning located at the tokenUrl.
func TestHostileTokenURLRefused(t *testing.T) {
	for _, u := range []string{"", "javascript:alert(1)", "file:///etc/passwd", "ftp://h/t", "https://user:pw@auth.example.com/t",
		"https:///t", "https://h/t#x", `https://h/t\n// evil`, `https://h/\u0000t`, "%zz", "https://h/a b"} {
		api, diags := loadHooks(t, oauthDoc(u))
		if f := api.SecuritySchemes[0].ClientCredentials; f != nil {
			t.Errorf("tokenUrl %q: kept as %+v", u, f)
			continue
		}
		if len(diags) != 1 || diags[0].Rule != ruleTokenURL || diags[0].Pointer != "/components/securitySchemes/cc/flows/clientCredentials/tokenUrl" {
			t.Errorf("tokenUrl %q: diagnostics %v", u, diags)
		}
	}
	// A quote breaks nothing: it is kept, and the generator quotes it.
	api, _ := loadHooks(t, oauthDoc(`https://h/t\"+os.Exit(1)+\"`))
	if f := api.SecuritySchemes[0].ClientCredentials; f == nil || !strings.Contains(f.TokenURL, `"`) {
		t.Errorf("quoted tokenUrl: %v", fmt.Sprint(f))
	}
}

// TestSwagger2ApplicationFlowIsClientCredentials: Swagger 2.0's
// `flow: application` is the client credentials flow.
func TestSwagger2ApplicationFlowIsClientCredentials(t *testing.T) {
	api, _ := loadHooks(t, swagger2CC)
	if f := api.SecuritySchemes[0].ClientCredentials; f == nil || f.TokenURL != "https://auth.example.com/token" || !slices.Equal(f.Scopes, []string{"read"}) {
		t.Fatalf("flow %+v", f)
	}
	_, diags := loadHooks(t, strings.Replace(swagger2CC, "https://auth.example.com/token", "ftp://auth.example.com/token", 1))
	if len(diags) != 1 || diags[0].Pointer != "/securityDefinitions/cc/tokenUrl" {
		t.Fatalf("diagnostics %v, want one at /securityDefinitions/cc/tokenUrl", diags)
	}
}

const swagger2CC = `swagger: "2.0"
info: {title: t, version: "1"}
host: api.example.com
paths: {}
securityDefinitions:
  cc:
    type: oauth2
    flow: application
    tokenUrl: https://auth.example.com/token
    scopes: {read: r}
`
