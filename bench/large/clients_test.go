package large

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/idemgen/idemgen/bench/clients/large/idemgengithub"
	"github.com/idemgen/idemgen/bench/clients/large/idemgenstripe"
	"github.com/idemgen/idemgen/bench/clients/large/oapicodegengithub"
	"github.com/idemgen/idemgen/bench/clients/large/ogengithub"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// contender is one client of one list operation: a call returns how many
// items it decoded and the checksum of their ids (GitHub) or amounts
// (Stripe).
type contender struct {
	name string
	call func(context.Context) (n int, sum int64, err error)
}

// newHTTPClient is a client with its own Transport (and so its own pool).
func newHTTPClient(srv *httptest.Server) *http.Client {
	return &http.Client{Transport: srv.Client().Transport.(*http.Transport).Clone()}
}

// githubContenders: the floor (encoding/json into idemgen's types), idemgen,
// oapi-codegen and ogen.
func githubContenders(srv *httptest.Server) ([]contender, error) {
	ic, err := idemgengithub.NewClient(srv.URL, idemrt.WithHTTPClient(newHTTPClient(srv)))
	if err != nil {
		return nil, err
	}
	oc, err := oapicodegengithub.NewClientWithResponses(srv.URL, oapicodegengithub.WithHTTPClient(newHTTPClient(srv)))
	if err != nil {
		return nil, err
	}
	gc, err := ogengithub.NewClient(srv.URL, ogengithub.WithClient(newHTTPClient(srv)))
	if err != nil {
		return nil, err
	}
	floor := newHTTPClient(srv)
	return []contender{
		{"encoding/json", func(ctx context.Context) (int, int64, error) {
			var out []idemgengithub.MinimalRepository
			err := floorGet(ctx, floor, srv.URL+"/orgs/octocat/repos", &out)
			return len(out), sumRepos(out, func(r idemgengithub.MinimalRepository) int64 { return r.ID }), err
		}},
		{"idemgen", func(ctx context.Context) (int, int64, error) {
			r, err := ic.ReposListForOrg(ctx, idemgengithub.ReposListForOrgParams{Org: "octocat"})
			if err != nil {
				return 0, 0, err
			}
			return len(r.Body), sumRepos(r.Body, func(r idemgengithub.MinimalRepository) int64 { return r.ID }), nil
		}},
		{"oapi-codegen", func(ctx context.Context) (int, int64, error) {
			r, err := oc.ReposlistForOrgWithResponse(ctx, "octocat", &oapicodegengithub.ReposlistForOrgParams{})
			if err != nil {
				return 0, 0, err
			}
			if r.JSON200 == nil {
				return 0, 0, fmt.Errorf("oapi-codegen: HTTP %d", r.StatusCode())
			}
			return len(*r.JSON200), sumRepos(*r.JSON200, func(r oapicodegengithub.MinimalRepository) int64 { return int64(r.Id) }), nil
		}},
		{"ogen", func(ctx context.Context) (int, int64, error) {
			r, err := gc.ReposListForOrg(ctx, ogengithub.ReposListForOrgParams{Org: "octocat"})
			if err != nil {
				return 0, 0, err
			}
			return len(r.Response), sumRepos(r.Response, func(r ogengithub.MinimalRepository) int64 { return int64(r.ID) }), nil
		}},
	}, nil
}

// stripeContenders: the floor and idemgen (ogen refuses the excerpt and
// oapi-codegen's client of it does not compile; see docs/benchmarks.md).
func stripeContenders(srv *httptest.Server) ([]contender, error) {
	ic, err := idemgenstripe.NewClient(srv.URL, idemrt.WithHTTPClient(newHTTPClient(srv)))
	if err != nil {
		return nil, err
	}
	floor := newHTTPClient(srv)
	sum := func(cs []idemgenstripe.Charge) int64 {
		var s int64
		for _, c := range cs {
			s += c.Amount
		}
		return s
	}
	return []contender{
		{"encoding/json", func(ctx context.Context) (int, int64, error) {
			var out idemgenstripe.GetChargesResponse
			err := floorGet(ctx, floor, srv.URL+"/v1/charges", &out)
			return len(out.Data), sum(out.Data), err
		}},
		{"idemgen", func(ctx context.Context) (int, int64, error) {
			r, err := ic.GetCharges(ctx, idemgenstripe.GetChargesParams{})
			if err != nil {
				return 0, 0, err
			}
			return len(r.Data), sum(r.Data), nil
		}},
	}, nil
}

func sumRepos[T any](rs []T, id func(T) int64) int64 {
	var s int64
	for _, r := range rs {
		s += id(r)
	}
	return s
}

// floorGet is the hand-written call: net/http, io.ReadAll, encoding/json.
func floorGet(ctx context.Context, hc *http.Client, url string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d", url, resp.StatusCode)
	}
	return json.Unmarshal(b, out)
}
