package sdkjudge

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/generator"
	"github.com/idemgen/idemgen/harness/stripespec"
	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/ir"
	"github.com/idemgen/idemgen/parser"
)

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
	openaiSpec := filepath.Join(testutil.RealSpecs(t, ""), "openai.yaml")
	stripeSpec := stripespec.Spec(t)
	dir := t.TempDir()
	writeGenerated(t, filepath.Join(dir, "openai"), load(t, openaiSpec), "openai")
	writeGenerated(t, filepath.Join(dir, "stripe"), stripespec.Load(t, stripeSpec), "stripe")
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

// load parses spec.
func load(t *testing.T, spec string) *ir.API {
	api, diags, err := parser.Load(spec, parser.Options{})
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
	gomod := "module sdkjudge.test\n" + reqs + "\n" + testutil.LocalReplaces(testutil.RepoRoot(t))
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
