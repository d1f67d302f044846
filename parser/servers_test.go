package parser

import (
	"strings"
	"testing"
)

// TestOperationServersAreCarried: an operation's servers win over its path
// item's, which win over the document's (then nil); a relative one is
// carried and reported.
func TestOperationServersAreCarried(t *testing.T) {
	spec := `openapi: 3.0.3
info: {title: s, version: "1"}
servers: [{url: "https://api.example.com"}]
paths:
  /files:
    servers: [{url: "https://path.example.com/"}]
    post:
      operationId: upload
      x-idempotent: false
      servers: [{url: "https://files.example.com/", description: files}]
      responses: {"204": {description: ok}}
    get:
      operationId: listFiles
      responses: {"204": {description: ok}}
  /plain:
    get:
      operationId: plain
      servers: [{url: "/beta"}]
      responses: {"204": {description: ok}}
`
	api, diags, err := LoadData("s.yaml", []byte(spec), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, op := range api.Operations {
		var urls []string
		for _, s := range op.Servers {
			urls = append(urls, s.URL)
		}
		got[op.ID] = strings.Join(urls, ",")
	}
	want := map[string]string{"upload": "https://files.example.com/", "listFiles": "https://path.example.com/", "plain": "/beta"}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: servers %q, want %q", id, got[id], w)
		}
	}
	if len(diags) != 1 || !strings.Contains(diags[0].String(), `server "/beta" is not an absolute URL`) {
		for _, d := range diags {
			t.Log(d.String())
		}
		t.Errorf("%d diagnostics, want one about /beta", len(diags))
	}
	if api.BasePath != "" {
		t.Errorf("BasePath %q of an absolute OpenAPI 3 server, want none", api.BasePath)
	}
}

// TestBasePath: a Swagger 2.0 basePath is the base path with or without a
// host, and so is the path of a relative OpenAPI 3 server.
func TestBasePath(t *testing.T) {
	for name, tc := range map[string]struct{ spec, servers, base string }{
		"swagger host": {`swagger: "2.0"
host: inv.example.com
basePath: /api/v2
schemes: [http]
`, "http://inv.example.com/api/v2", "/api/v2"},
		"swagger no host": {`swagger: "2.0"
basePath: /api/v2/
`, "/api/v2/", "/api/v2"},
		"swagger root": {`swagger: "2.0"
host: inv.example.com
`, "https://inv.example.com/", ""},
		"openapi relative": {`openapi: 3.0.3
servers: [{url: /api/v3}]
`, "/api/v3", "/api/v3"},
	} {
		spec := tc.spec + "info: {title: s, version: \"1\"}\npaths: {}\n"
		api, _, err := LoadData("s.yaml", []byte(spec), Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var urls []string
		for _, s := range api.Servers {
			urls = append(urls, s.URL)
		}
		if strings.Join(urls, ",") != tc.servers || api.BasePath != tc.base {
			t.Errorf("%s: servers %q, base path %q; want %q, %q", name, urls, api.BasePath, tc.servers, tc.base)
		}
	}
}
