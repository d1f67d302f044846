package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/ir"
)

var (
	warnPost = ir.Diagnostic{Severity: ir.SeverityWarning, Rule: "unannotated-unsafe", File: "a.yaml", Line: 12, Column: 5,
		Pointer: "/paths/~1orders/post", Operation: "createOrder", Message: "POST without x-idempotent: an unknown outcome is never retried"}
	errAuth = ir.Diagnostic{Severity: ir.SeverityError, Rule: "retryable-status-auth", File: "a.yaml", Line: 42, Column: 9,
		Pointer: "/paths/~1orders/post/x-retryable-status/1", Operation: "createOrder", Message: "401 is never retried; remove it"}
)

func TestLintExitCodes(t *testing.T) {
	tests := []struct {
		name   string
		diags  ir.Diagnostics
		strict bool
		code   int
	}{
		{"clean", nil, false, exitOK},
		{"warnings only", ir.Diagnostics{warnPost}, false, exitOK},
		{"warnings strict", ir.Diagnostics{warnPost}, true, exitProblem},
		{"clean strict", nil, true, exitOK},
		{"errors", ir.Diagnostics{warnPost, errAuth}, false, exitProblem},
	}
	for _, tt := range tests {
		for _, format := range []string{"text", "json"} {
			t.Run(tt.name+"/"+format, func(t *testing.T) {
				args := []string{"lint", "--format", format, "a.yaml"}
				if tt.strict {
					args = append(args, "--strict")
				}
				r := runFake(t, &fake{diags: tt.diags}, args...)
				if r.code != tt.code || r.stderr != "" {
					t.Errorf("exit %d (want %d), stderr %q", r.code, tt.code, r.stderr)
				}
			})
		}
	}
}

func TestLintText(t *testing.T) {
	r := runFake(t, &fake{diags: ir.Diagnostics{warnPost, errAuth}}, "lint", "a.yaml", "b.yaml")
	want := "warning: a.yaml:12:5: createOrder (/paths/~1orders/post): POST without x-idempotent: an unknown outcome is never retried [unannotated-unsafe]\n" +
		"error: a.yaml:42:9: createOrder (/paths/~1orders/post/x-retryable-status/1): 401 is never retried; remove it [retryable-status-auth]\n" +
		"warning: a.yaml:12:5: createOrder (/paths/~1orders/post): POST without x-idempotent: an unknown outcome is never retried [unannotated-unsafe]\n" +
		"error: a.yaml:42:9: createOrder (/paths/~1orders/post/x-retryable-status/1): 401 is never retried; remove it [retryable-status-auth]\n" +
		"2 errors, 2 warnings in 2 files\n"
	if r.stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", r.stdout, want)
	}
	if r := runFake(t, &fake{}, "lint", "a.yaml"); r.stdout != "0 errors, 0 warnings in 1 file\n" {
		t.Errorf("clean summary %q", r.stdout)
	}
}

func TestLintJSON(t *testing.T) {
	r := runFake(t, &fake{diags: ir.Diagnostics{errAuth}}, "lint", "--format=json", "a.yaml")
	var got []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, r.stdout)
	}
	want := map[string]any{"severity": "error", "rule": "retryable-status-auth", "file": "a.yaml", "line": 42.0, "column": 9.0,
		"pointer": "/paths/~1orders/post/x-retryable-status/1", "operation": "createOrder", "message": "401 is never retried; remove it"}
	if len(got) != 1 || len(got[0]) != len(want) {
		t.Fatalf("got %v", got)
	}
	for k, v := range want {
		if got[0][k] != v {
			t.Errorf("%s = %v, want %v", k, got[0][k], v)
		}
	}
	if r := runFake(t, &fake{}, "lint", "--format", "json", "a.yaml"); r.stdout != "[]\n" {
		t.Errorf("clean JSON = %q, want []", r.stdout)
	}
}

// TestLintLoadFailures: a spec that cannot be loaded is one "load" error, and
// the other specs are still reported.
func TestLintLoadFailures(t *testing.T) {
	r := runFake(t, &fake{loadErr: errors.New("open nope.yaml: no such file or directory")}, "lint", "nope.yaml")
	want := "error: nope.yaml: open nope.yaml: no such file or directory [load]\n1 error, 0 warnings in 1 file\n"
	if r.code != exitProblem || r.stdout != want {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}
	r = runFake(t, &fake{panicMsg: "index out of range"}, "lint", "--format", "json", "x.yaml")
	if r.code != exitProblem || !strings.Contains(r.stdout, `"rule": "load"`) || !strings.Contains(r.stdout, "index out of range") {
		t.Errorf("panic: exit %d, stdout %q", r.code, r.stdout)
	}
}

// TestLintManySpecsKeepsOrder: specs load in parallel but print in argument
// order.
func TestLintManySpecsKeepsOrder(t *testing.T) {
	f := &fake{}
	tc := f.toolchain()
	tc.load = func(path string, _ loadSettings) (*ir.API, ir.Diagnostics, error) {
		return &ir.API{}, ir.Diagnostics{{Severity: ir.SeverityWarning, File: path, Message: "w"}}, nil
	}
	var specs []string
	var want strings.Builder
	for i := range 40 {
		name := string(rune('a'+i%26)) + strings.Repeat("x", i/26) + ".yaml"
		specs = append(specs, name)
		want.WriteString("warning: " + name + ": w\n")
	}
	want.WriteString("0 errors, 40 warnings in 40 files\n")
	var out, errOut strings.Builder
	code := runWith(tc, append([]string{"lint"}, specs...), &out, &errOut)
	if code != exitOK || out.String() != want.String() {
		t.Errorf("exit %d, stdout:\n%s", code, out.String())
	}
}
