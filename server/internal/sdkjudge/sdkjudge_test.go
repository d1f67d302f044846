package sdkjudge

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/annotate"
	"github.com/idemgen/idemgen/generator"
	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/ir"
	"github.com/idemgen/idemgen/parser"
)

// stripeMockVersion is the stripe-mock release .ci/run installs; its
// embedded spec3.json is the Stripe API stripe-go v82 speaks.
const stripeMockVersion = "v0.203.0"

// repoRoot is the checkout this module sits in (server/internal/sdkjudge).
const repoRoot = "../../.."

// TestOfficialSDKs generates the OpenAI and Stripe servers into a temporary
// module beside the driver in testdata/driver, and runs the driver there:
// openai-go and stripe-go call the generated servers on 127.0.0.1. The
// generated packages are not committed: they follow the generator, and the
// specs live outside the repository.
func TestOfficialSDKs(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and builds the OpenAI and Stripe servers")
	}
	start := time.Now()
	openaiSpec, stripeSpec := specs(t)
	dir := t.TempDir()
	writeGenerated(t, filepath.Join(dir, "openai"), load(t, openaiSpec, ""), "openai")
	stripeCopy, overlay := stripeOverlay(t, stripeSpec)
	writeGenerated(t, filepath.Join(dir, "stripe"), load(t, stripeCopy, overlay), "stripe")
	writeModule(t, dir)
	args := []string{"test", "-count=1", "-v"}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, "./driver")...)
	cmd.Dir = dir
	// The temporary module resolves the repository's modules through the
	// replaces writeModule adds, not through a workspace.
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("the driver failed: %v", err)
	}
	t.Logf("wall time %s (generate, build and run both servers and both SDKs)", time.Since(start).Round(time.Second))
}

// specs finds the OpenAI document in ../shared/specs and stripe-mock's
// spec3.json in the module cache; without them the test skips, or fails
// under CI=true (CI always has both).
func specs(t *testing.T) (openaiSpec, stripeSpec string) {
	miss := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	openaiSpec = filepath.Join(sharedSpecs(t), "openai.yaml")
	if _, err := os.Stat(openaiSpec); err != nil {
		miss("the OpenAI spec is missing (set IDEMGEN_SHARED_SPECS): %v", err)
	}
	stripeSpec = filepath.Join(goEnv(t, "GOMODCACHE"), "github.com", "stripe", "stripe-mock@"+stripeMockVersion, "embedded", "openapi", "spec3.json")
	if _, err := os.Stat(stripeSpec); err != nil {
		miss("stripe-mock's spec3.json is not in the module cache (go install github.com/stripe/stripe-mock@%s): %v", stripeMockVersion, err)
	}
	return openaiSpec, stripeSpec
}

// sharedSpecs is ../shared/specs beside the checkout, beside the main
// checkout of a git worktree, or $IDEMGEN_SHARED_SPECS.
func sharedSpecs(t *testing.T) string {
	if env := os.Getenv("IDEMGEN_SHARED_SPECS"); env != "" {
		return env
	}
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "..", "shared", "specs")
	if _, err := os.Stat(dir); err == nil {
		return dir
	}
	// In a worktree, .git is a file naming <main>/.git/worktrees/<name>.
	b, err := os.ReadFile(filepath.Join(root, ".git"))
	if gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); err == nil && ok {
		return filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(gitdir))), "..", "shared", "specs")
	}
	return dir
}

func goEnv(t *testing.T, name string) string {
	b, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(b))
}

// stripeOverlay writes, beside a copy of spec, the overlay idemgen annotate
// --key-header Idempotency-Key writes (Stripe keys every POST without
// declaring the header), and returns the copy's path and the overlay's.
func stripeOverlay(t *testing.T, spec string) (specCopy, overlay string) {
	src, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	res, err := annotate.Options{KeyHeader: "Idempotency-Key"}.Annotate(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	specCopy, overlay = filepath.Join(dir, "spec3.json"), filepath.Join(dir, "keys.overlay.yaml")
	copyFile(t, "", specCopy, src)
	copyFile(t, "", overlay, res.Overlay("stripe-mock keys", "spec3.json"))
	return specCopy, overlay
}

// load parses spec, with overlay when given.
func load(t *testing.T, spec, overlay string) *ir.API {
	var opts parser.Options
	if overlay != "" {
		opts.Overlays = []string{overlay}
	}
	api, diags, err := parser.Load(spec, opts)
	if err != nil || diags.HasErrors() {
		t.Fatalf("loading %s: %v %v", spec, err, diags.Errors())
	}
	return api
}

// writeGenerated writes the client and server generated from api into dir
// as package pkg.
func writeGenerated(t *testing.T, dir string, api *ir.API, pkg string) {
	out, err := generator.Generate(api, generator.Config{Package: pkg, Server: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range out.Files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// writeModule makes dir the module sdkjudge.test: this module's
// requirements and sums, the repository's modules replaced by the checkout,
// and the driver copied from testdata/driver.
func writeModule(t *testing.T, dir string) {
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	_, reqs, _ := strings.Cut(string(mod), "\n")
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	gomod := "module sdkjudge.test\n" + reqs + "\n" + testutil.LocalReplaces(root)
	copyFile(t, "", filepath.Join(dir, "go.mod"), []byte(gomod))
	copyFile(t, "go.sum", filepath.Join(dir, "go.sum"), nil)
	drivers, err := filepath.Glob(filepath.Join("testdata", "driver", "*.go"))
	if err != nil || len(drivers) == 0 {
		t.Fatalf("no driver in testdata/driver: %v", err)
	}
	for _, d := range drivers {
		copyFile(t, d, filepath.Join(dir, "driver", filepath.Base(d)), nil)
	}
}

// copyFile writes b, or the file src when b is nil, to dst.
func copyFile(t *testing.T, src, dst string, b []byte) {
	if b == nil {
		var err error
		if b, err = os.ReadFile(src); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
