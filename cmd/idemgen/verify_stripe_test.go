package main

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/annotate"
	"github.com/idemgen/idemgen/harness/stripespec"
	"github.com/idemgen/idemgen/verify"
)

// TestVerifyStripeMock: stripe-mock is stateless: it answers every request
// afresh and keeps no key, so verify must say, per keyed operation, that
// its keys are not honoured. That is the right answer about a mock, not a
// flaw of the real API. Skipped without the binary unless CI=true.
func TestVerifyStripeMock(t *testing.T) {
	if testing.Short() {
		t.Skip("loads Stripe's 8 MB document twice")
	}
	bin, spec := stripespec.Binary(t), stripespec.Spec(t)
	dir := t.TempDir()
	src, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	res, err := annotate.Options{KeyHeader: "Idempotency-Key"}.Annotate(src)
	if err != nil {
		t.Fatal(err)
	}
	local, overlay := filepath.Join(dir, "spec3.json"), filepath.Join(dir, "keys.overlay.yaml")
	writeFile(t, local, string(src))
	writeFile(t, overlay, string(res.Overlay("stripe-mock keys", "spec3.json")))
	url := startStripeMockBinary(t, bin)
	ops := []string{"PostCustomers", "PostCustomersCustomer", "PostProducts"}
	args := []string{local, "--overlay", overlay, "--server", url, "--allow-writes", "--operations", strings.Join(ops, ",")}
	t.Setenv(envVerifyBearer, "sk_test_123")
	code, text, _ := verifyRun(args...)
	t.Logf("text report:\n%s", text)
	code2, out, errOut := verifyRun(append(args, "--format", "json")...)
	if code != exitProblem || code2 != exitProblem {
		t.Fatalf("exit %d and %d, want 1\n%s", code, code2, errOut)
	}
	replay := map[string]string{}
	for _, r := range jsonReport(t, out).Results {
		if r.Check == verify.CheckKeyedReplay && r.Verdict == verify.Fail {
			replay[r.Operation] = r.Message
		}
	}
	for _, op := range ops {
		if !strings.HasPrefix(replay[op], "keys are not honoured") {
			t.Errorf("%s keyed-replay: %q, want a failure saying keys are not honoured", op, replay[op])
		}
	}
}

// startStripeMockBinary runs stripe-mock on a free loopback port until the
// test ends and returns its URL.
func startStripeMockBinary(t *testing.T, bin string) string {
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
	for range 1200 {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr
		}
		time.Sleep(50 * time.Millisecond) // waits for a real process to listen
	}
	t.Fatalf("stripe-mock did not listen on %s", addr)
	return ""
}
