package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// TestLintGolden pins lint's human and JSON reports on the specs under
// testdata/lint, produced by the real parser.
func TestLintGolden(t *testing.T) {
	specs := []string{"testdata/lint/clean.yaml", "testdata/lint/problems.yaml", "testdata/lint/broken.yaml"}
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(append([]string{"lint", "--format", format}, specs...), &out, &errOut)
			if code != exitProblem || errOut.Len() != 0 {
				t.Errorf("exit %d (want 1), stderr %q", code, errOut.String())
			}
			testutil.Golden(t, filepath.Join("testdata", "lint."+format+".golden"), out.Bytes())
		})
	}
}

// TestLintCleanSpec: a spec with only well-formed contracts exits 0, and
// stays at 0 under --strict.
func TestLintCleanSpec(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"lint", "--strict", "testdata/lint/clean.yaml"}, &out, &errOut); code != exitOK {
		t.Errorf("exit %d:\n%s%s", code, out.String(), errOut.String())
	}
}

// TestLintSharedSpecs runs lint on every real-world spec beside the checkout:
// each must load and exit 0 (warnings are fine). `idemgen lint` is quick on
// them; see docs/cli.md for the measured times.
func TestLintSharedSpecs(t *testing.T) {
	dir := testutil.RealSpecs(t, "")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if e.IsDir() || (ext != ".yaml" && ext != ".yml" && ext != ".json") {
			continue
		}
		n++
		t.Run(e.Name(), func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run([]string{"lint", filepath.Join(dir, e.Name())}, &out, &errOut)
			if code != exitOK {
				t.Errorf("exit %d\n%s%s", code, errorLines(out.String()), errOut.String())
			}
		})
	}
	if n == 0 {
		t.Skip("the shared specs folder holds no spec")
	}
}

// errorLines keeps the error findings of a text report.
func errorLines(report string) string {
	var b strings.Builder
	for line := range strings.Lines(report) {
		if strings.HasPrefix(line, "error: ") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// TestLintReportsWhatGenerateRefuses: lint and generate reject the same
// documents, including constructs only the generator checks (a parameter
// style the client cannot serialise).
func TestLintReportsWhatGenerateRefuses(t *testing.T) {
	root := testutil.ModuleRoot(t)
	for _, name := range []string{"header-style.yaml", "path-style.yaml"} {
		spec := filepath.Join(root, "testdata", "specs", "bad-gen", name)
		var lintOut, lintErr, genOut, genErr bytes.Buffer
		lintCode := run([]string{"lint", spec}, &lintOut, &lintErr)
		genCode := run([]string{"generate", spec, "-p", "x", "-o", t.TempDir()}, &genOut, &genErr)
		if lintCode != exitProblem || genCode != exitProblem || !strings.Contains(lintOut.String(), "[unsupported-style]") {
			t.Errorf("%s: lint exit %d, generate exit %d; lint said:\n%s", name, lintCode, genCode, lintOut.String())
		}
	}
}
