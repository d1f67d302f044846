package routing_test

// The generated routing client against the generated routing server over
// loopback, with an echo handler: each call reaches the operation it was
// made for, through parameters inside segments ({Sid}.json, {name}.{ext},
// {id}:cancel), overlapping templates and a fixed query in a path key, and
// the handler reads exactly the values the caller passed. Hand-written; the
// golden test leaves files without the generated header alone.

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"testing"

	"github.com/idemgen/idemgen/golden/routing"
	_ "github.com/idemgen/idemgen/internal/testutil" // defines -update for go test ./... -update
)

// echo answers every operation with its ID and the path values it read.
type echo struct{}

func answer(op string, vals ...string) (*routing.Echo, error) {
	return &routing.Echo{Op: op, Values: append([]string{}, vals...)}, nil
}

func (echo) CancelJob(_ context.Context, p routing.CancelJobParams) (*routing.Echo, error) {
	return answer("cancelJob", strconv.FormatInt(p.ID, 10))
}

func (echo) CreateBetaResponse(context.Context) (*routing.Echo, error) {
	return answer("createBetaResponse")
}

func (echo) CreateResponse(context.Context) (*routing.Echo, error) { return answer("createResponse") }

func (echo) GetAddress(_ context.Context, p routing.GetAddressParams) (*routing.Echo, error) {
	return answer("getAddress", p.AccountSid, p.Sid)
}

func (echo) GetBy(_ context.Context, p routing.GetByParams) (*routing.Echo, error) {
	return answer("getBY", p.Y)
}

func (echo) GetFile(_ context.Context, p routing.GetFileParams) (*routing.Echo, error) {
	return answer("getFile", p.Name, p.Ext)
}

func (echo) GetJob(_ context.Context, p routing.GetJobParams) (*routing.Echo, error) {
	return answer("getJob", strconv.FormatInt(p.ID, 10))
}

func (echo) GetXc(_ context.Context, p routing.GetXcParams) (*routing.Echo, error) {
	return answer("getXC", p.X)
}

func (echo) ListAddresses(_ context.Context, p routing.ListAddressesParams) (*routing.Echo, error) {
	return answer("listAddresses", p.AccountSid)
}

func TestServerRoutesEveryTemplate(t *testing.T) {
	srv, err := routing.NewServer(echo{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	c, err := routing.NewClient(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		call func() (*routing.Echo, error)
		want routing.Echo
	}{
		{func() (*routing.Echo, error) {
			return c.GetAddress(ctx, routing.GetAddressParams{AccountSid: "AC 1/x,y", Sid: "AD2"})
		}, routing.Echo{Op: "getAddress", Values: []string{"AC 1/x,y", "AD2"}}},
		{func() (*routing.Echo, error) {
			return c.ListAddresses(ctx, routing.ListAddressesParams{AccountSid: "AC1"})
		}, routing.Echo{Op: "listAddresses", Values: []string{"AC1"}}},
		{func() (*routing.Echo, error) {
			return c.GetFile(ctx, routing.GetFileParams{Name: "report", Ext: "tar.gz"})
		}, routing.Echo{Op: "getFile", Values: []string{"report", "tar.gz"}}},
		{func() (*routing.Echo, error) {
			return c.GetFile(ctx, routing.GetFileParams{Name: "a/b:c", Ext: "txt"})
		}, routing.Echo{Op: "getFile", Values: []string{"a/b:c", "txt"}}},
		{func() (*routing.Echo, error) { return c.GetJob(ctx, routing.GetJobParams{ID: 42}) },
			routing.Echo{Op: "getJob", Values: []string{"42"}}},
		{func() (*routing.Echo, error) { return c.CancelJob(ctx, routing.CancelJobParams{ID: 42}) },
			routing.Echo{Op: "cancelJob", Values: []string{"42"}}},
		{func() (*routing.Echo, error) { return c.GetXc(ctx, routing.GetXcParams{X: "z"}) },
			routing.Echo{Op: "getXC", Values: []string{"z"}}},
		{func() (*routing.Echo, error) { return c.GetBy(ctx, routing.GetByParams{Y: "q"}) },
			routing.Echo{Op: "getBY", Values: []string{"q"}}},
		// /a/b/c matches both templates: the literal b is tried first.
		{func() (*routing.Echo, error) { return c.GetXc(ctx, routing.GetXcParams{X: "b"}) },
			routing.Echo{Op: "getBY", Values: []string{"c"}}},
		{func() (*routing.Echo, error) { return c.CreateResponse(ctx) }, routing.Echo{Op: "createResponse", Values: []string{}}},
		{func() (*routing.Echo, error) { return c.CreateBetaResponse(ctx) }, routing.Echo{Op: "createBetaResponse", Values: []string{}}},
	} {
		got, err := tc.call()
		if err != nil || got == nil || !reflect.DeepEqual(*got, tc.want) {
			t.Errorf("%s: got %+v, %v, want %+v", tc.want.Op, got, err, tc.want)
		}
	}
}

// TestServerRefusesUnroutedRequests: an unknown path is 404 and a known
// path with another method 405 with Allow, both as problems.
func TestServerRefusesUnroutedRequests(t *testing.T) {
	srv, err := routing.NewServer(echo{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	for _, tc := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{"DELETE", "/jobs/1:cancel", http.StatusMethodNotAllowed, "GET, HEAD, OPTIONS, POST"},
		{"DELETE", "/files/a.b", http.StatusMethodNotAllowed, "GET, HEAD, OPTIONS"},
		{"GET", "/files/nodot", http.StatusNotFound, ""},
		{"GET", "/Accounts/AC1/Addresses/AD2.xml", http.StatusNotFound, ""},
	} {
		req, _ := http.NewRequest(tc.method, ts.URL+tc.path, nil)
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status || resp.Header.Get("Allow") != tc.allow || resp.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s %s: %d Allow %q %s, want %d Allow %q", tc.method, tc.path, resp.StatusCode, resp.Header.Get("Allow"),
				resp.Header.Get("Content-Type"), tc.status, tc.allow)
		}
	}
}
