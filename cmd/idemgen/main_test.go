package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/idemgen/idemgen/ir"
)

// fake is a toolchain whose results the test sets; it records the arguments
// it was called with.
type fake struct {
	api      *ir.API
	diags    ir.Diagnostics
	loadErr  error
	files    []genFile
	skipped  ir.Diagnostics
	genErr   error
	panicMsg string

	loaded    []string
	allowRefs bool
	overlays  []string
	pkg       string
	skip      bool
	server    bool
}

// fakeMu guards what fakes record: lint loads specs concurrently. It is a
// package variable because table tests copy fake values.
var fakeMu sync.Mutex

func (f *fake) toolchain() toolchain {
	return toolchain{
		load: func(path string, ls loadSettings) (*ir.API, ir.Diagnostics, error) {
			if f.panicMsg != "" {
				panic(f.panicMsg)
			}
			fakeMu.Lock()
			f.loaded = append(f.loaded, path)
			f.allowRefs = ls.AllowRemoteRefs
			f.overlays = ls.Overlays
			fakeMu.Unlock()
			api := f.api
			if api == nil {
				api = &ir.API{Title: "fake"}
			}
			return api, f.diags, f.loadErr
		},
		generate: func(_ *ir.API, s genSettings) ([]genFile, ir.Diagnostics, error) {
			fakeMu.Lock()
			f.pkg, f.skip, f.server = s.Package, s.SkipUnsupported, s.Server
			fakeMu.Unlock()
			return f.files, f.skipped, f.genErr
		},
	}
}

// result is the outcome of one in-process run.
type result struct {
	code           int
	stdout, stderr string
}

func runFake(t *testing.T, f *fake, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := runWith(f.toolchain(), args, &out, &errOut)
	return result{code, out.String(), errOut.String()}
}

func TestUsageErrorsExit2(t *testing.T) {
	dir := t.TempDir()
	badConfig := filepath.Join(dir, "bad.yaml")
	writeFile(t, badConfig, "spec: a.yaml\npackge: typo\n")
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no command", nil, "Usage:"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"unknown flag", []string{"generate", "--bogus"}, "unknown flag: --bogus"},
		{"generate without spec", []string{"generate", "-p", "x", "-o", dir}, "missing SPEC"},
		{"generate without package", []string{"generate", "a.yaml", "-o", dir}, "missing --package"},
		{"generate without out", []string{"generate", "a.yaml", "-p", "x"}, "missing --out"},
		{"generate bad package", []string{"generate", "a.yaml", "-p", "my-pkg", "-o", dir}, `"my-pkg" is not a valid Go package name`},
		{"generate keyword package", []string{"generate", "a.yaml", "-p", "type", "-o", dir}, "not a valid Go package name"},
		{"generate two specs", []string{"generate", "a.yaml", "b.yaml", "-p", "x", "-o", dir}, "accepts at most 1 arg"},
		{"missing config", []string{"generate", "--config", filepath.Join(dir, "nope.yaml")}, "config"},
		{"config typo", []string{"generate", "--config", badConfig}, "field packge not found"},
		{"lint without spec", []string{"lint"}, "requires at least 1 arg"},
		{"lint bad format", []string{"lint", "--format", "xml", "a.yaml"}, "--format must be text or json"},
		{"annotate without spec", []string{"annotate"}, "requires at least 1 arg"},
		{"version with args", []string{"version", "now"}, "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fake{}
			r := runFake(t, f, tt.args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", r.code, r.stderr, tt.stderr)
			}
			if len(f.loaded) != 0 {
				t.Errorf("a usage error still loaded %v", f.loaded)
			}
		})
	}
}

func TestHelpHasExamples(t *testing.T) {
	for _, cmd := range []string{"generate", "lint", "annotate", "version"} {
		r := runFake(t, &fake{}, cmd, "--help")
		if r.code != exitOK || !strings.Contains(r.stdout, "Examples:") || r.stderr != "" {
			t.Errorf("%s --help: exit %d, stdout %q, stderr %q", cmd, r.code, r.stdout, r.stderr)
		}
	}
}

func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		r := runFake(t, &fake{}, "completion", shell)
		if r.code != exitOK || !strings.Contains(r.stdout, "idemgen") {
			t.Errorf("completion %s: exit %d, %d bytes", shell, r.code, len(r.stdout))
		}
	}
}

func TestVersion(t *testing.T) {
	want := "idemgen " + versionString() + "\n"
	for _, args := range [][]string{{"version"}, {"--version"}} {
		if r := runFake(t, &fake{}, args...); r.code != exitOK || r.stdout != want {
			t.Errorf("%v: exit %d, stdout %q, want %q", args, r.code, r.stdout, want)
		}
	}
	// A test binary records no module version; `go install ...@v1.2.3`
	// would record the tag.
	if v := versionString(); v == "" {
		t.Error("empty version")
	}
}

func TestRealMainWiring(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"version"}, &out, &errOut); code != exitOK || !strings.HasPrefix(out.String(), "idemgen ") {
		t.Errorf("run version: exit %d, %q %q", code, out.String(), errOut.String())
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
