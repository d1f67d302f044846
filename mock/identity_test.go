package mock_test

import (
	"net/http/httptest"
	"slices"
	"testing"

	idemgenmock "github.com/idemgen/idemgen/mock"
)

// identitySpec declares saveThing on two methods of one path item (whose
// operations kin-openapi hands over as a map) and createWidget twice in
// different cases.
const identitySpec = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /things:
    put: {operationId: saveThing, responses: {"204": {description: ok}}}
    post: {operationId: saveThing, responses: {"204": {description: ok}}}
  /api/v1/widgets:
    post: {operationId: createWidget, responses: {"204": {description: ok}}}
  /cluster/widgets:
    post: {operationId: CreateWidget, responses: {"204": {description: ok}}}
  /unique:
    get: {operationId: getUnique, responses: {"204": {description: ok}}}
`

// TestSharedOperationIDsCountByBinding: the mock names an operation as a
// generated client names it (docs/generator.md, "Operation identity"): its
// operationId when no other operation's is the same without case, else
// "METHOD /path". Before, the first one met kept the operationId, and of
// two methods on one path which was first changed from run to run.
func TestSharedOperationIDsCountByBinding(t *testing.T) {
	want := []string{"POST /api/v1/widgets", "POST /cluster/widgets", "POST /things", "PUT /things", "getUnique"}
	for run := 0; run < 20; run++ {
		s, err := idemgenmock.NewData("ids.yaml", []byte(identitySpec), idemgenmock.Options{})
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(s)
		for _, call := range [][2]string{{"PUT", "/things"}, {"POST", "/things"}, {"POST", "/api/v1/widgets"}, {"POST", "/cluster/widgets"}, {"GET", "/unique"}} {
			do(t, call[0], hs.URL+call[1], "")
		}
		hs.Close()
		s.Close()
		var got []string
		for id, st := range s.Stats().Operations {
			if st.Requests != 1 {
				t.Errorf("%s: %d requests, want 1", id, st.Requests)
			}
			got = append(got, id)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("run %d: operations %q, want %q", run, got, want)
		}
	}
}
