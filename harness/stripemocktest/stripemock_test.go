// Package stripemocktest drives a client generated from stripe-mock's own
// spec against stripe-mock, the judge that real Stripe servers agree with:
// every operation three ways, through a recording proxy that checks the
// idempotency keys, drops one response to see it retried with the same key,
// and keeps the answers to count the members lost by decoding.
package stripemocktest

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/idemgen/idemgen/generator"
	"github.com/idemgen/idemgen/harness/stripespec"
	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/ir"
)

// outcome is one call's result as the driver reports it.
type outcome struct {
	ID     string          `json:"id"`
	Status int             `json:"status"`
	Err    string          `json:"err"`
	Result json.RawMessage `json:"result"`
}

func TestStripeMockAcceptsEveryOperation(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and drives a 594-operation client")
	}
	start := time.Now()
	spec := stripespec.Spec(t)
	bin := stripespec.Binary(t)
	api := stripespec.Load(t, spec)
	calls, expandless := plan(api)
	dir := writeDriverModule(t, api, calls)
	mockURL := startStripeMock(t, bin)
	rec := newRecorder(t, mockURL, "PostCustomers/"+wayRequired)
	out := runDriver(t, dir, rec.url)
	byID := map[string]outcome{}
	for _, o := range out {
		byID[o.ID] = o
	}
	report(t, api, calls, byID, rec, expandless)
	t.Logf("run time %s (generate, build and %d calls)", time.Since(start).Round(time.Second), len(calls))
}

// writeDriverModule generates the client into a temp module that replaces
// idemgen with this checkout, with the driver test and its plan.
func writeDriverModule(t *testing.T, api *ir.API, calls []plannedCall) string {
	out, err := generator.Generate(api, generator.Config{Package: "stripe"})
	if err != nil {
		t.Fatal(err)
	}
	root := testutil.ModuleRoot(t)
	dir := t.TempDir()
	write := func(name string, b []byte) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", []byte("module example.com/smtest\n\ngo 1.26\n\nrequire github.com/idemgen/idemgen v0.0.0\n\n"+testutil.LocalReplaces(root)))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write("go.sum", sum)
	for _, f := range out.Files {
		write(filepath.Join("stripe", f.Name), f.Content)
	}
	write(filepath.Join("driver", "driver_test.go"), []byte(driverSource))
	write("calls.json", mustJSON(calls))
	return dir
}

// startStripeMock runs stripe-mock on a free loopback port until the test
// ends and returns its URL.
func startStripeMock(t *testing.T, bin string) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "-http-addr", addr)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	go func() { // drain its log so it never blocks
		s := bufio.NewScanner(stderr)
		for s.Scan() {
		}
	}()
	for i := 0; i < 300; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr
		}
		time.Sleep(50 * time.Millisecond) // waits for a real process to listen
	}
	t.Fatalf("stripe-mock did not listen on %s", addr)
	return ""
}

// runDriver builds and runs the driver once and returns its outcomes.
func runDriver(t *testing.T, dir, url string) []outcome {
	outFile := filepath.Join(dir, "out.json")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-run", "TestDrive", "./driver/")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "SM_URL="+url,
		"SM_CALLS="+filepath.Join(dir, "calls.json"), "SM_OUT="+outFile)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("driver: %v\n%s", err, truncate(string(b), 4000))
	}
	raw, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	var out []outcome
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// report counts the accepted calls per way, checks the keys, the dropped
// response's retry and the lost members, and fails on what must hold.
func report(t *testing.T, api *ir.API, calls []plannedCall, byID map[string]outcome, rec *recorder, expandless int) {
	accepted := map[string]int{}
	var refused, mockErrors []string
	lostDeclared, lostUndeclared := map[string]int{}, 0
	for _, c := range calls {
		o := byID[c.ID]
		switch {
		case o.Err == "":
			accepted[c.way]++
			d, u := lostMembers(c.op, rec.answer(c.ID), o.Result)
			lostUndeclared += len(u)
			for _, p := range d {
				lostDeclared[c.op.GoName+" "+p]++
			}
		case o.Status >= 500 && c.way == wayExpand:
			mockErrors = append(mockErrors, c.ID+": "+truncate(o.Err, 200))
		default:
			refused = append(refused, c.ID+": "+truncate(o.Err, 200)+": "+truncate(rec.refusal(c.ID), 300))
		}
	}
	n := len(api.Operations)
	t.Logf("operations accepted: %d/%d required-only, %d/%d all members, %d/%d with expand (%d without expand)",
		accepted[wayRequired], n, accepted[wayAll], n, accepted[wayExpand], n-expandless, expandless)
	t.Logf("members lost by decoding and re-encoding: %d undeclared, %d declared", lostUndeclared, len(lostDeclared))
	for _, e := range mockErrors {
		t.Logf("stripe-mock 5xx on an expansion (not counted): %s", e)
	}
	sort.Strings(refused)
	for _, r := range refused {
		t.Errorf("refused: %s", r)
	}
	for _, p := range sortedKeys(lostDeclared) {
		t.Errorf("declared member lost: %s", p)
	}
	rec.check(t)
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
