package generator

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/parser"
)

// TestRealWorldSpecsBuildAndVet generates every document in ../shared/specs
// into one temporary module (a package per document), then runs go build
// and go vet on it. It is skipped under -short: the packages are large.
func TestRealWorldSpecsBuildAndVet(t *testing.T) {
	dir := testutil.RealSpecs(t, "generates and compiles the real-world specs")
	specs, _ := filepath.Glob(filepath.Join(dir, "*"))
	pkgs := map[string][]File{}
	for _, spec := range specs {
		ext := filepath.Ext(spec)
		if ext != ".yaml" && ext != ".yml" && ext != ".json" {
			continue
		}
		name := packageName(strings.TrimSuffix(filepath.Base(spec), ext))
		start := time.Now()
		api, diags, err := parser.Load(spec, parser.Options{})
		if err != nil || diags.HasErrors() {
			t.Errorf("%s: load: %v %v", name, err, diags.Errors())
			continue
		}
		loaded := time.Since(start)
		out, err := Generate(api, Config{Package: name})
		if err != nil {
			t.Errorf("%s: generate: %v", name, err)
			continue
		}
		generated := time.Since(start)
		if err := typeCheckFiles(t, out.Files); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		t.Logf("%s: %d operations, %d schemas; load %v, generate %v, type-check %v", name, len(api.Operations), len(api.Schemas),
			loaded.Round(time.Millisecond), (generated - loaded).Round(time.Millisecond), (time.Since(start) - generated).Round(time.Millisecond))
		pkgs[name] = out.Files
	}
	mod := writeModule(t, pkgs)
	if bad := gofmtClean(t, mod); bad != "" {
		t.Errorf("gofmt would change: %s", bad)
	}
	for _, step := range [][]string{{"build", "./..."}, {"vet", "./..."}} {
		start := time.Now()
		out, err := goTool(mod, step...)
		t.Logf("go %s: %v", step[0], time.Since(start).Round(time.Millisecond))
		if err != nil {
			t.Errorf("go %s failed in %s: %v\n%s", step[0], failingPackages(out), err, truncate(out, 4000))
		}
	}
	t.Logf("%d of %d specs generated", len(pkgs), countSpecs(specs))
}

// packageName turns a file name into a package name ("stripe-spec3-2023-09"
// -> "stripespec3202309").
func packageName(s string) string {
	s = regexp.MustCompile(`[^a-z0-9]`).ReplaceAllString(strings.ToLower(s), "")
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		s = "api" + s
	}
	return s
}

// failingPackages lists the packages named in go tool output.
func failingPackages(out string) []string {
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^# example\.com/gentest/(\S+)`).FindAllStringSubmatch(out, -1) {
		seen[m[1]] = true
	}
	var names []string
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "\n..."
}

func countSpecs(paths []string) int {
	n := 0
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && filepath.Ext(p) != ".md" {
			n++
		}
	}
	return n
}
