package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

const diffCases = "../../testdata/diff/"

func runDiffCmd(args ...string) result {
	var out, errOut bytes.Buffer
	code := run(append([]string{"diff"}, args...), &out, &errOut)
	return result{code, out.String(), errOut.String()}
}

// TestDiffExitCodes: 0 when nothing breaks (a non-breaking change, or the
// same API written another way), 1 when something does, 2 for a spec that
// cannot be compared and for usage errors.
func TestDiffExitCodes(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"same api respelled", []string{diffCases + "base.yaml", diffCases + "respelled.yaml"}, exitOK},
		{"non-breaking only", []string{diffCases + "base.yaml", diffCases + "enum-value-added.yaml"}, exitOK},
		{"non-breaking with --all", []string{"--all", diffCases + "base.yaml", diffCases + "enum-value-added.yaml"}, exitOK},
		{"contract broken", []string{diffCases + "base.yaml", diffCases + "key-removed.yaml"}, exitProblem},
		{"go surface broken", []string{"--format", "json", diffCases + "base.yaml", diffCases + "member-removed.yaml"}, exitProblem},
		{"missing spec", []string{diffCases + "base.yaml", "testdata/diff/absent.yaml"}, exitTrouble},
		{"spec with errors", []string{"testdata/diff/broken.yaml", diffCases + "base.yaml"}, exitTrouble},
		{"bad format", []string{"--format", "sarif", diffCases + "base.yaml", diffCases + "base.yaml"}, exitUsage},
		{"one argument", []string{diffCases + "base.yaml"}, exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if r := runDiffCmd(tt.args...); r.code != tt.code {
				t.Errorf("exit %d, want %d\nstdout %s\nstderr %s", r.code, tt.code, r.stdout, r.stderr)
			}
		})
	}
}

// TestDiffBrokenSpecIsLocated: a spec with errors is refused with its
// located errors, as lint prints them.
func TestDiffBrokenSpecIsLocated(t *testing.T) {
	r := runDiffCmd("testdata/diff/broken.yaml", diffCases+"base.yaml")
	want := "error: testdata/diff/broken.yaml:9:"
	if !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "[retryable-status-never]") ||
		!strings.Contains(r.stderr, "broken.yaml has errors; nothing compared") || r.stdout != "" {
		t.Errorf("stderr %q (want %q and the rule), stdout %q", r.stderr, want, r.stdout)
	}
}

// TestDiffText: each change on one line, located in NEW; a removal also
// names its place in OLD; non-breaking changes only with --all, counted in
// the summary either way.
func TestDiffText(t *testing.T) {
	r := runDiffCmd(diffCases+"base.yaml", diffCases+"response-removed.yaml")
	want := "breaking: " + diffCases + "response-removed.yaml:10:7: createOrder (/paths/~1orders/post/responses/201): " +
		"CreateOrder no longer answers 201 (was " + diffCases + "base.yaml:19:11) [response-removed]\n" +
		"1 breaking change (0 to the retry contract), 1 other change (listed with --all)\n"
	if r.stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", r.stdout, want)
	}
	r = runDiffCmd("--all", diffCases+"base.yaml", diffCases+"response-removed.yaml")
	if !strings.Contains(r.stdout, "change: "+diffCases+"response-removed.yaml:20:11: createOrder (/paths/~1orders/post/responses/200): CreateOrder may answer 200 now [response-added]\n") ||
		!strings.HasSuffix(r.stdout, "1 breaking change (0 to the retry contract), 1 other change\n") {
		t.Errorf("--all stdout:\n%s", r.stdout)
	}
}

// TestDiffJSON: one array, every change's keys, [] when nothing changed.
func TestDiffJSON(t *testing.T) {
	r := runDiffCmd("--format", "json", diffCases+"base.yaml", diffCases+"key-moved.yaml")
	var got []diffFinding
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || len(got) != 1 {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	want := diffFinding{Rule: "key-moved", Area: "retry-contract", Breaking: true, Operation: "createOrder",
		Pointer: "/paths/~1orders/post/x-idempotent", File: diffCases + "key-moved.yaml", Line: 12, Column: 9,
		OldFile: diffCases + "base.yaml", OldLine: 11, Message: got[0].Message}
	if got[0] != want || !strings.Contains(got[0].Message, "X-Request-Key") {
		t.Errorf("got %+v\nwant %+v", got[0], want)
	}
	if r := runDiffCmd("--format", "json", diffCases+"base.yaml", diffCases+"respelled.yaml"); r.stdout != "[]\n" {
		t.Errorf("nothing changed: %q", r.stdout)
	}
}

// TestDiffGitHub: one workflow command per change, ::error for breaking
// and ::notice for the rest, the title's ":" escaped.
func TestDiffGitHub(t *testing.T) {
	r := runDiffCmd("--all", "--format", "github", diffCases+"base.yaml", diffCases+"media-type-removed.yaml")
	want := "::error file=" + diffCases + "media-type-removed.yaml,line=20,col=11,title=idemgen diff%3A media-type-removed::" +
		"createOrder (/paths/~1orders/post/responses/201/content/application~1json): CreateOrder's 201 response no longer has the media type application/json\n" +
		"::notice file=" + diffCases + "media-type-removed.yaml,line=20,col=11,title=idemgen diff%3A media-type-added::" +
		"createOrder (/paths/~1orders/post/responses/201/content/application~1vnd.shop+json): CreateOrder's 201 response has a new media type application/vnd.shop+json\n"
	if r.stdout != want || r.code != exitProblem {
		t.Errorf("exit %d, stdout:\n%s\nwant:\n%s", r.code, r.stdout, want)
	}
}

// TestDiffGitHubHostileSpec: a path key, an operationId and a media type
// holding a line break followed by "::error" (or "::warning") stay inside
// the one annotation of their change: each change is one line, and every
// line is a command idemgen wrote. The text format keeps one line per
// change too, since the runner reads every step's output for commands.
func TestDiffGitHubHostileSpec(t *testing.T) {
	old, new := filepath.Join("testdata", "diff", "hostile.old.yaml"), filepath.Join("testdata", "diff", "hostile.yaml")
	for _, format := range []string{"github", "text"} {
		r := runDiffCmd("--all", "--format", format, old, new)
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		if r.code != exitProblem || len(lines) < 2 {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", format, r.code, r.stdout, r.stderr)
		}
		for _, l := range lines {
			injected := strings.HasPrefix(l, "::") && !strings.HasPrefix(l, "::error file="+githubProperty(new)+",")
			if format == "text" {
				injected = strings.HasPrefix(l, "::")
			}
			if injected {
				t.Errorf("%s: a line the spec wrote: %q", format, l)
			}
		}
		if !strings.Contains(r.stdout, "injected") {
			t.Errorf("%s: the hostile operation is not reported:\n%s", format, r.stdout)
		}
	}
}

// TestDiffEscapesTerminalControls (D4): a removed path holding an OSC 8
// hyperlink, a bidi override and ESC[2J reaches no terminal raw, in any
// format: the text and the annotations escape it as idemgen ledger and
// idemgen journal do (escapeText), the JSON as their JSON does, and each
// still names the path in a form that reads back to its bytes.
func TestDiffEscapesTerminalControls(t *testing.T) {
	old, new := filepath.Join("testdata", "diff", "terminal.old.yaml"), filepath.Join("testdata", "diff", "terminal.yaml")
	for _, tc := range []struct{ format, shown string }{
		{"text", `/a\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07\u202e\x1b[2J`},
		{"github", `/a\x1b]8;;https://evil.example/\x07click`},
		{"json", `/a\u001b]8;;https://evil.example/\u0007click\u001b]8;;\u0007\u202e\u001b[2J`},
	} {
		r := runDiffCmd("--all", "--format", tc.format, old, new)
		if r.code != exitProblem {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", tc.format, r.code, r.stdout, r.stderr)
		}
		if i := strings.IndexFunc(r.stdout, func(c rune) bool { return c == 0x1b || c == 0x07 || c == 0x9b || c == 0x202e }); i >= 0 {
			t.Errorf("%s: a terminal control reaches the output at byte %d:\n%q", tc.format, i, r.stdout)
		}
		if !strings.Contains(r.stdout, tc.shown) {
			t.Errorf("%s: the path is not shown escaped (want %s):\n%s", tc.format, tc.shown, r.stdout)
		}
	}
}

// TestGitHubEscaping: the workflow-command escapes, data and property.
func TestGitHubEscaping(t *testing.T) {
	if got := githubData("100%\r\n::error::x"); got != "100%25%0D%0A::error::x" {
		t.Errorf("data: %q", got)
	}
	if got := githubProperty("a,b:c%\n"); got != "a%2Cb%3Ac%25%0A" {
		t.Errorf("property: %q", got)
	}
}
