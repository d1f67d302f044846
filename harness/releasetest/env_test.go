// Package releasetest checks a release the way its users meet it: the
// modules scripts/release builds are fetched through the go command from a
// file-based module proxy (or straight from a tagged clone), never from the
// work tree.
package releasetest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/modfile"
)

// goTool runs the go command with an environment of its own.
type goTool struct {
	bin string
	env []string
}

// cleanEnv is the test's environment without the variables that steer the
// go command's module resolution (CI sets GOFLAGS=-mod=readonly, and a
// developer may set any of them): every test sets its own.
func cleanEnv() []string {
	drop := map[string]bool{"GOFLAGS": true, "GOWORK": true, "GOPROXY": true, "GONOPROXY": true, "GOPRIVATE": true,
		"GONOSUMDB": true, "GONOSUMCHECK": true, "GOSUMDB": true, "GOPATH": true, "GOMODCACHE": true, "GOBIN": true,
		"GOENV": true, "GOTOOLCHAIN": true, "GOINSECURE": true, "GOVCS": true, "GO111MODULE": true}
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !drop[k] {
			env = append(env, kv)
		}
	}
	return env
}

// newGo finds the go command, or skips the test.
func newGo(t *testing.T, env ...string) goTool {
	t.Helper()
	bin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not in PATH")
	}
	return goTool{bin: bin, env: append(append(cleanEnv(), "GOENV=off", "GOTOOLCHAIN=local"), env...)}
}

// run runs go args in dir and returns its combined output; it fails the
// test on a non-zero exit, logging how long the step took.
func (g goTool) run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return runCmd(t, dir, g.env, g.bin, args...)
}

func runCmd(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("%s %s (in %s): %.1fs", filepath.Base(name), strings.Join(args, " "), filepath.Base(dir), time.Since(start).Seconds())
	if err != nil {
		t.Fatalf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

// hostEnv reads go env values of the machine's own configuration (the
// shared build cache, the module cache and the proxy behind ours).
func hostEnv(t *testing.T, names ...string) []string {
	t.Helper()
	g := newGo(t)
	g.env = append(cleanEnv(), "GOTOOLCHAIN=local")
	out := strings.Split(strings.TrimRight(g.run(t, ".", append([]string{"env"}, names...)...), "\n"), "\n")
	if len(out) != len(names) {
		t.Fatalf("go env %v: %q", names, out)
	}
	return out
}

// workVersion is the version go.work's replaces point at the work tree: the
// next release's, which the tests release in a dry run.
func workVersion(t *testing.T, root string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "go.work"))
	if err != nil {
		t.Fatal(err)
	}
	wf, err := modfile.ParseWork("go.work", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range wf.Replace {
		if r.Old.Path == "github.com/idemgen/idemgen" && r.Old.Version != "" {
			return r.Old.Version
		}
	}
	t.Fatal("go.work has no versioned replace of github.com/idemgen/idemgen")
	return ""
}

// repoRoot is the repository root: the directory of go.work above the test.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.work not found above the test's directory")
		}
		dir = parent
	}
}

// sumLines returns the go.sum lines of path at version, keyed "h1" (the
// zip) and "go.mod".
func sumLines(t *testing.T, gosum, path, version string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(gosum)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != path {
			continue
		}
		switch f[1] {
		case version:
			got["h1"] = f[2]
		case version + "/go.mod":
			got["go.mod"] = f[2]
		}
	}
	return got
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustContain(t *testing.T, what string, data []byte, want string) {
	t.Helper()
	if !bytes.Contains(data, []byte(want)) {
		t.Errorf("%s lacks %q:\n%s", what, want, data)
	}
}
