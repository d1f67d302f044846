package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	_ "github.com/idemgen/idemgen/internal/testutil"
)

func TestVsFloor(t *testing.T) {
	if got := vsFloor(105, 100); got != "+5.0%" {
		t.Errorf("vsFloor(105, 100) = %q", got)
	}
	if got := vsFloor(1, 0); got != "-" {
		t.Errorf("vsFloor without floor = %q", got)
	}
}

// TestCountsGrowWithIterations runs the real thing on two loops, of 100,000
// and 1,000,000 additions: the per-call figures must differ by about 10x.
// The work per call is large so that the run-to-run noise of the fixed
// cost (about a million instructions) stays small beside it.
func TestCountsGrowWithIterations(t *testing.T) {
	if testing.Short() {
		t.Skip("runs valgrind")
	}
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind not installed")
	}
	dir := t.TempDir()
	src := `package p
import "testing"
var sink int
func BenchmarkWork(b *testing.B) {
	b.Run("small", func(b *testing.B) { for b.Loop() { for i := range 100000 { sink += i } } })
	b.Run("large", func(b *testing.B) { for b.Loop() { for i := range 1000000 { sink += i } } })
}
`
	for name, body := range map[string]string{"go.mod": "module p\n\ngo 1.26\n", "p_test.go": src} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "p.test")
	build := exec.Command("go", "test", "-c", "-o", bin, ".")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go test -c: %v\n%s", err, out)
	}
	var b strings.Builder
	cfg := config{test: bin, benches: []string{"Work"}, clients: []string{"small", "large"}, n1: 10, n2: 60}
	if err := run(cfg, &b); err != nil {
		t.Fatal(err)
	}
	var small, large float64
	for line := range strings.Lines(b.String()) {
		f := strings.Split(line, "|")
		if len(f) == 6 && strings.TrimSpace(f[1]) == "Work" {
			v, _ := strconv.ParseFloat(strings.TrimSpace(f[3]), 64)
			if strings.TrimSpace(f[2]) == "small" {
				small = v
			} else {
				large = v
			}
		}
	}
	if small <= 0 || large < 7*small || large > 13*small {
		t.Errorf("per call: small %.0f, large %.0f; want large about 10x small\n%s", small, large, b.String())
	}
}
