package verify_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/ir"
	"github.com/idemgen/idemgen/parser"
	"github.com/idemgen/idemgen/verify"
)

func loadContract(t *testing.T) *ir.API {
	t.Helper()
	api, diags, err := parser.Load("testdata/contract.yaml", parser.Options{})
	if err != nil || diags.HasErrors() {
		t.Fatalf("%v %v", err, diags.Errors())
	}
	return api
}

func runContract(t *testing.T, url string) *verify.Report {
	t.Helper()
	rep, err := verify.Run(context.Background(), loadContract(t), verify.Options{
		Server:      url,
		Credentials: func(r *http.Request) { r.Header.Set("Authorization", "Bearer tok-secret") },
		Secrets:     []string{"tok-secret"},
		Inputs: func(op *ir.Operation) verify.Input {
			switch op.ID {
			case "createThing", "replaceThing":
				return verify.Input{MediaType: "application/json", Body: map[string]any{"name": "a", "size": 1},
					Params: map[string]string{"id": "t1"}}
			}
			return verify.Input{Params: map[string]string{"id": "t1"}}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// verdicts maps "operation check" to its verdict.
func verdicts(rep *verify.Report) map[string]verify.Verdict {
	out := map[string]verify.Verdict{}
	for _, r := range rep.Results {
		out[r.Operation+" "+r.Check] = r.Verdict
	}
	return out
}

func failed(rep *verify.Report) []string {
	var out []string
	for _, r := range rep.Results {
		if r.Verdict == verify.Fail {
			out = append(out, r.Operation+" "+r.Check+": "+r.Message)
		}
	}
	return out
}

// TestHonestServerPasses: a server that keeps the contract passes every
// check, and verify's own writes executed createThing three times: the
// first of keyed-replay, its fresh-key control and the concurrent twins'
// one execution (the repeat, the reuse and the twin ran nothing).
func TestHonestServerPasses(t *testing.T) {
	srv, url := newThingServer(t, "")
	rep := runContract(t, url)
	if f := failed(rep); len(f) > 0 || rep.Count(verify.Skip) > 0 {
		t.Fatalf("failed %v, skipped %d: %+v", f, rep.Count(verify.Skip), rep.Results)
	}
	want := map[string]verify.Verdict{
		"createThing keyed-replay": verify.Pass, "createThing keyed-reuse": verify.Pass,
		"createThing keyed-concurrent": verify.Pass, "createThing keyed-ttl": verify.Info,
		"createThing auth-status": verify.Pass, "createThing retryable-mismatch": verify.Pass,
		"replaceThing if-match-stale": verify.Pass, "replaceThing auth-status": verify.Pass,
		"notifyThing unsafe-unsettleable": verify.Info, "notifyThing auth-status": verify.Pass,
		"getThingByKey auth-status": verify.Pass,
	}
	got := verdicts(rep)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	for _, r := range rep.Results {
		if r.Check == verify.CheckKeyedReplay && !strings.HasSuffix(r.Message, "; listThings shows one new item") {
			t.Errorf("keyed-replay does not count the list: %s", r.Message)
		}
	}
	if srv.executions != 3 {
		t.Errorf("createThing executed %d times, want 3", srv.executions)
	}
}

// TestBrokenServers: a server broken one way fails the check that judges
// that way, and no other check it does not break.
func TestBrokenServers(t *testing.T) {
	cases := []struct {
		broken string
		fails  []string // operation check, sorted
		says   string
	}{
		{"keyed-replay", []string{"createThing keyed-concurrent", "createThing keyed-replay"}, "keys are not honoured"},
		{"lookup", []string{"createThing keyed-replay"}, "x-lookup getThingByKey does not find the call that executed"},
		{"executes-twice", []string{"createThing keyed-concurrent", "createThing keyed-replay"}, "listThings shows 2 new items after one key sent twice: the repeat executed again"},
		{"keyed-reuse", []string{"createThing keyed-concurrent", "createThing keyed-replay", "createThing keyed-reuse"}, "another body under a used key was accepted"},
		{"keyed-concurrent", []string{"createThing keyed-concurrent"}, "two answers to one key, two executions: /id"},
		{"if-match-stale", []string{"replaceThing if-match-stale"}, "a stale ETag was accepted (200): a silent overwrite"},
		{"retry-after", []string{"createThing retry-after"}, `503 with Retry-After "soon"`},
		{"retryable-mismatch", []string{"createThing retryable-mismatch"}, "422 is final by x-retryable-status, but the server says to retry it"},
		{"auth-status", []string{"createThing auth-status", "getThingByKey auth-status", "listThings auth-status", "notifyThing auth-status", "replaceThing auth-status"}, "ran unauthenticated"},
	}
	for _, c := range cases {
		t.Run(c.broken, func(t *testing.T) {
			_, url := newThingServer(t, c.broken)
			rep := runContract(t, url)
			var fails []string
			said := false
			for _, r := range rep.Results {
				if r.Verdict == verify.Fail {
					fails = append(fails, r.Operation+" "+r.Check)
					said = said || strings.Contains(r.Message, c.says)
				}
			}
			slices.Sort(fails)
			if !slices.Equal(fails, c.fails) || !said {
				t.Errorf("failed %v, want %v with %q:\n%s", fails, c.fails, c.says, strings.Join(failed(rep), "\n"))
			}
		})
	}
}
