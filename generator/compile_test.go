package generator

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// writeModule writes generated packages into a fresh module in a temp dir
// whose go.mod replaces github.com/idemgen/idemgen with this checkout, so the
// packages compile against the runtime being tested.
func writeModule(t *testing.T, pkgs map[string][]File) string {
	t.Helper()
	root := testutil.ModuleRoot(t)
	dir := t.TempDir()
	gomod := "module example.com/gentest\n\ngo 1.26\n\nrequire github.com/idemgen/idemgen v0.0.0\n\n" +
		testutil.LocalReplaces(root)
	writeFile(t, filepath.Join(dir, "go.mod"), []byte(gomod))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "go.sum"), sum)
	for pkg, files := range pkgs {
		for _, f := range files {
			writeFile(t, filepath.Join(dir, pkg, f.Name), f.Content)
		}
	}
	return dir
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// typeCheckFiles type-checks generated files as one package with go/types
// against the real runtime source (testutil.TypeCheck).
func typeCheckFiles(t testing.TB, files []File) error {
	t.Helper()
	m := make(map[string][]byte, len(files))
	for _, f := range files {
		m[f.Name] = f.Content
	}
	return testutil.TypeCheck(t, m)
}

// goTool runs the go command in dir and returns its combined output.
func goTool(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// gofmtClean runs the gofmt binary (not go/format, which does not reformat
// doc comments the way gofmt does) on dir and returns the files it would
// change.
func gofmtClean(t *testing.T, dir string) string {
	t.Helper()
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(strings.TrimSpace(string(goroot)), "bin", "gofmt"), "-l", ".")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gofmt: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}
