package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/generator"
	"github.com/idemgen/idemgen/internal/testutil"
)

// TestExplicitPackageNameRefused: a --package Go cannot import (init, main,
// a keyword, a predeclared identifier, _, a non-identifier) is a usage
// error naming the reason, and nothing is written.
func TestExplicitPackageNameRefused(t *testing.T) {
	spec := filepath.Join(testutil.ModuleRoot(t), "testdata", "specs", "orders.yaml")
	for name, reason := range map[string]string{
		"init":   "cannot be imported",
		"main":   "is a program",
		"type":   "Go keyword",
		"len":    "predeclared",
		"string": "predeclared",
		"nil":    "predeclared",
		"_":      "blank identifier",
		"9lives": "not a Go identifier",
		"a-b":    "not a Go identifier",
		"":       "missing --package",
	} {
		for _, module := range []bool{false, true} {
			if name == "" && module {
				continue // -p "" with --module derives the name
			}
			out := filepath.Join(t.TempDir(), "out")
			args := []string{"generate", spec, "-p", name, "-o", out}
			if module {
				args = append(args, "--module", "example.com/acme/orders")
			}
			var stdout, stderr bytes.Buffer
			code := runWith(defaultToolchain(), args, &stdout, &stderr)
			if code != exitUsage || !strings.Contains(stderr.String(), reason) {
				t.Errorf("-p %q (module %v): exit %d, stderr %q; want exit %d naming %q",
					name, module, code, stderr.String(), exitUsage, reason)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("-p %q (module %v): %s was created (%v)", name, module, out, err)
			}
		}
	}
}

// TestExplicitPackageNameFromConfig: a config file's package: is explicit
// too, and refused the same way.
func TestExplicitPackageNameFromConfig(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(testutil.ModuleRoot(t), "testdata", "specs", "orders.yaml")
	cfg := filepath.Join(dir, "idemgen.yaml")
	writeFile(t, cfg, "spec: "+spec+"\npackage: init\nout: out\nmodule: example.com/x/orders\n")
	var stdout, stderr bytes.Buffer
	if code := runWith(defaultToolchain(), []string{"generate", "--config", cfg}, &stdout, &stderr); code != exitUsage ||
		!strings.Contains(stderr.String(), `--package "init"`) {
		t.Errorf("package: init in a config: exit %d, %q", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
		t.Errorf("out was created: %v", err)
	}
}

func TestDerivedPackageName(t *testing.T) {
	for path, want := range map[string]derivedName{
		"example.com/x/init":        {"initapi", "init"},
		"example.com/x/main":        {"mainapi", "main"},
		"example.com/x/go-type":     {"typeapi", "type"},
		"example.com/x/len":         {"lenapi", "len"},
		"example.com/x/string-go":   {"stringapi", "string"},
		"example.com/x/payments-go": {"payments", ""},
		"example.com/x/123":         {"", ""},
	} {
		if got := derivePackage(path); got != want {
			t.Errorf("derivePackage(%q) = %+v, want %+v", path, got, want)
		}
	}
}

// TestModuleReservedLastElement: --module example.com/x/init (no
// --package) picks "initapi" with a warning on stderr, and the module it
// writes builds, vets and runs its examples. The examples' own variables
// (c, srv) as package names must not shadow the import either.
func TestModuleReservedLastElement(t *testing.T) {
	root := testutil.ModuleRoot(t)
	spec := filepath.Join(root, "testdata", "specs", "orders.yaml")
	for _, tc := range []struct{ module, pkg, warn string }{
		{"example.com/x/init", "initapi", `package name "init" (the last element of --module example.com/x/init) cannot be imported: Go reserves init for functions; using "initapi"`},
		{"example.com/x/c", "c", ""},
		{"example.com/x/srv", "srv", ""},
	} {
		t.Run(tc.pkg, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "sdk")
			var stdout, stderr bytes.Buffer
			code := runWith(defaultToolchain(), []string{"generate", spec, "--module", tc.module, "-o", out}, &stdout, &stderr)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.warn) || (tc.warn == "") != (stderr.Len() == 0) {
				t.Errorf("stderr %q, want the warning %q", stderr.String(), tc.warn)
			}
			doc, err := os.ReadFile(filepath.Join(out, "doc.go"))
			if err != nil || !strings.Contains(string(doc), "\npackage "+tc.pkg+"\n") {
				t.Fatalf("doc.go is not package %s (%v):\n%s", tc.pkg, err, doc)
			}
			if testing.Short() {
				return
			}
			goBin, err := exec.LookPath("go")
			if err != nil {
				t.Skip("the go command is not in PATH")
			}
			goCmd := func(args ...string) {
				t.Helper()
				cmd := exec.Command(goBin, args...)
				cmd.Dir = out
				cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local")
				if b, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, b)
				}
			}
			goCmd("mod", "edit", "-replace", generator.RuntimeModule+"="+filepath.Join(root, "runtime"))
			goCmd("vet", "./...")
			goCmd("test", "-count=1", "-run", "Example", "./...")
		})
	}
}
