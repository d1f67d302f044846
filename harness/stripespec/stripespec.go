// Package stripespec finds stripe-mock, the Stripe API's official mock,
// and the OpenAPI document it embeds, for the tests that use them as
// judges (harness/stripemocktest, server/internal/sdkjudge). .ci/run
// installs the release named by Version with go install.
//
// Without them a test is skipped with a message saying how to get them,
// except under CI=true, where it fails: CI must run these tests.
package stripespec

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/annotate"
	"github.com/idemgen/idemgen/ir"
	"github.com/idemgen/idemgen/parser"
)

// Version is the stripe-mock release .ci/run installs; its embedded
// spec3.json is the Stripe API stripe-go v82 speaks.
const Version = "v0.203.0"

// Spec returns the path of stripe-mock's spec3.json in the module cache.
func Spec(t testing.TB) string {
	t.Helper()
	spec := filepath.Join(GoEnv(t, "GOMODCACHE"), "github.com", "stripe", "stripe-mock@"+Version, "embedded", "openapi", "spec3.json")
	if _, err := os.Stat(spec); err != nil {
		miss(t, "stripe-mock's spec3.json is not in the module cache (%v)", err)
	}
	return spec
}

// Binary returns the path of the stripe-mock command: on PATH, or in GOBIN
// (GOPATH/bin when unset).
func Binary(t testing.TB) string {
	t.Helper()
	if bin, err := exec.LookPath("stripe-mock"); err == nil {
		return bin
	}
	gobin := GoEnv(t, "GOBIN")
	if gobin == "" {
		gobin = filepath.Join(GoEnv(t, "GOPATH"), "bin")
	}
	bin := filepath.Join(gobin, "stripe-mock")
	if _, err := os.Stat(bin); err != nil {
		miss(t, "stripe-mock is neither on PATH nor in %s", gobin)
	}
	return bin
}

// Load parses spec with the overlay `idemgen annotate --key-header
// Idempotency-Key` writes for it: Stripe keys every POST without
// declaring the header.
func Load(t testing.TB, spec string) *ir.API {
	t.Helper()
	src, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	res, err := annotate.Options{KeyHeader: "Idempotency-Key"}.Annotate(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	local, overlay := filepath.Join(dir, "spec3.json"), filepath.Join(dir, "keys.overlay.yaml")
	if err := os.WriteFile(local, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(overlay, res.Overlay("stripe-mock keys", "spec3.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	api, diags, err := parser.Load(local, parser.Options{Overlays: []string{overlay}})
	if err != nil || diags.HasErrors() {
		t.Fatalf("loading %s: %v %v", spec, err, diags.Errors())
	}
	return api
}

// GoEnv returns `go env name`.
func GoEnv(t testing.TB, name string) string {
	t.Helper()
	b, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(b))
}

func miss(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...) + "; install it with go install github.com/stripe/stripe-mock@" + Version
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}
