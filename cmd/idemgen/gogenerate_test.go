package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// TestGoGenerate runs idemgen the way users do: a module with a `tool` line
// for idemgen (pointing at this checkout through a replace directive), a
// //go:generate directive, then `go generate` and `go build` of the result,
// and `--check` through `go tool` to show the output is current.
func TestGoGenerate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds idemgen and a generated client with the go command; skipped under -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not in PATH")
	}
	root := testutil.ModuleRoot(t)
	app := t.TempDir()
	spec, err := os.ReadFile(filepath.Join(root, "testdata", "specs", "orders.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(app, "api", "orders.yaml"), string(spec))
	writeFile(t, filepath.Join(app, "go.sum"), string(sum))
	writeFile(t, filepath.Join(app, "go.mod"), "module example.com/app\n\ngo 1.26\n\n"+
		"require github.com/idemgen/idemgen v0.0.0\n\n"+testutil.LocalReplaces(root))
	writeFile(t, filepath.Join(app, "orders", "generate.go"),
		"package orders\n\n//go:generate go tool idemgen generate ../api/orders.yaml --package orders --out .\n")

	goCmd := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(goBin, args...)
		cmd.Dir = app
		// Everything comes from the module cache the checkout already uses;
		// -mod=mod lets `go get -tool` record the requirements.
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
		out, err := cmd.CombinedOutput()
		if err != nil && strings.Contains(string(out), "module lookup disabled") {
			// The module cache lacks a dependency and the test does not
			// go to the network for it: an environment limit, not a bug.
			t.Skipf("go %s needs a module missing from the cache:\n%s", strings.Join(args, " "), out)
		}
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	goCmd("get", "-tool", "github.com/idemgen/idemgen/cmd/idemgen")
	goCmd("generate", "./...")
	for _, name := range []string{"client_gen.go", "models_gen.go", "doc.go", "generate.go"} {
		if _, err := os.Stat(filepath.Join(app, "orders", name)); err != nil {
			t.Errorf("after go generate: %v", err)
		}
	}
	goCmd("build", "./...")
	goCmd("vet", "./...")
	if out := goCmd("tool", "idemgen", "generate", "api/orders.yaml", "-p", "orders", "-o", "orders", "--check"); out != "" {
		t.Errorf("--check after go generate printed %q", out)
	}
}
