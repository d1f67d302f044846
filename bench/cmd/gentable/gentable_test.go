package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/idemgen/idemgen/internal/testutil"
)

func TestFirstErrorLineSkipsLogsAndBuildHeader(t *testing.T) {
	cases := map[string]string{
		"INFO\tconvenient\tGenerating\nWARN\tx\n  - spec.json:1:2 -> depth exceeded\n\tctx\n": "spec.json:1:2 -> depth exceeded",
		"# example.com/p\n./client.gen.go:7606:2: StartTime redeclared\n":                     "./client.gen.go:7606:2: StartTime redeclared",
		"error generating code: duplicate typename 'Actor'\n":                                 "error generating code: duplicate typename 'Actor'",
		"\n\n": "(no message)",
	}
	for in, want := range cases {
		if got := firstErrorLine(in); got != want {
			t.Errorf("firstErrorLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPackageName(t *testing.T) {
	cases := map[string]string{
		"/x/twilio-api-v2010.yaml":  "twilio",
		"petstore-expanded.yaml":    "petstore",
		"github-api.json":           "github",
		"stripe-spec3-2023-09.yaml": "stripe",
		"3rd.yaml":                  "api",
		"/specs/OpenAI.yaml":        "openai",
		"/specs/discord.json":       "discord",
		"/specs/noextension":        "noextension",
	}
	for in, want := range cases {
		if got := packageName(in); got != want {
			t.Errorf("packageName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCountLinesCountsOnlyGoFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.go", "package p\n\nfunc A() {}\n")
	write("sub/b.go", "package sub\n")
	write("README.md", "not\ncounted\n")
	files, lines, err := countLines(dir)
	if err != nil || files != 2 || lines != 4 {
		t.Fatalf("countLines = %d files, %d lines, %v; want 2, 4, nil", files, lines, err)
	}
}

func TestRunNKeepsMedianAndReportsRefusal(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ok := runN(ctx, 3, t.TempDir(), nil, "true")
	if ok.err != nil || ok.wall <= 0 || ok.cpu < 0 || ok.rssKB <= 0 {
		t.Fatalf("runN(true) = %+v; want a wall time and an RSS", ok)
	}
	bad := runN(ctx, 3, t.TempDir(), []string{"GOGC=100"}, "sh", "-c", "echo 'INFO noise' >&2; echo 'spec.yaml:3: broken' >&2; exit 1")
	if bad.err == nil || !strings.HasSuffix(bad.err.Error(), "spec.yaml:3: broken") {
		t.Fatalf("runN(failing) err = %v; want the first error line", bad.err)
	}
}

func TestRatioCell(t *testing.T) {
	idem := cell{gen: sample{wall: time.Second, cpu: 2 * time.Second, rssKB: 100}}
	peer := cell{gen: sample{wall: 4 * time.Second, cpu: time.Second, rssKB: 400}}
	if got, want := ratioCell(idem, peer), "0.25x time, 2.00x cpu, 0.25x RSS"; got != want {
		t.Errorf("ratioCell = %q, want %q", got, want)
	}
	refused := cell{gen: sample{err: errMissing}}
	if got := ratioCell(idem, refused); got != "-" {
		t.Errorf("ratioCell against a refusal = %q, want -", got)
	}
}
