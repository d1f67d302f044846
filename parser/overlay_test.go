package parser

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/internal/overlay"
	"github.com/idemgen/idemgen/ir"
)

const overlaySpec = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /orders:
    post:
      operationId: createOrder
      responses:
        "201": {description: created}
    get:
      operationId: listOrders
      responses:
        "200": {description: ok}
`

// writeFiles writes name -> content into a temporary folder and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestOverlayRuleIDs(t *testing.T) {
	if ruleOverlayTarget != overlay.RuleTarget || ruleOverlayAction != overlay.RuleAction {
		t.Error("diag.go's overlay rule ids differ from internal/overlay's")
	}
}

func TestOverlayKeysOperation(t *testing.T) {
	dir := writeFiles(t, map[string]string{"api.yaml": overlaySpec, "keys.yaml": `overlay: 1.0.0
info: {title: keys, version: "1"}
actions:
  - target: $.paths['/orders'].post
    update:
      x-idempotent: {key: {in: header, name: Idempotency-Key}}
  - target: $.paths['/orders'].get
    remove: true
`})
	api, diags, err := Load(filepath.Join(dir, "api.yaml"), Options{Overlays: []string{filepath.Join(dir, "keys.yaml")}})
	if err != nil || diags.HasErrors() {
		t.Fatalf("err %v, diags %v", err, diags)
	}
	if len(api.Operations) != 1 {
		t.Fatalf("%d operations, want 1 (listOrders removed)", len(api.Operations))
	}
	op := api.Operations[0]
	if op.Retry.Safety != ir.Keyed || op.Retry.KeyName != "Idempotency-Key" {
		t.Errorf("createOrder: %v %q, want keyed by Idempotency-Key", op.Retry.Safety, op.Retry.KeyName)
	}
	if !strings.HasSuffix(op.Retry.IdempotencySource.File, "keys.yaml") || op.Retry.IdempotencySource.Line != 6 {
		t.Errorf("contract source %+v, want keys.yaml line 6", op.Retry.IdempotencySource)
	}
}

// A finding about a value an overlay added names the overlay's file, line
// and column, and the document's pointer; a target that selects nothing is
// a warning at the action in the overlay.
func TestOverlayFindingsLocatedInOverlay(t *testing.T) {
	dir := writeFiles(t, map[string]string{"api.yaml": overlaySpec, "bad.yaml": `overlay: 1.0.0
info: {title: bad, version: "1"}
actions:
  - target: $.paths['/orders'].post
    update:
      x-idempotent: false
      x-retryable-status: [503, 401]
  - target: $.paths['/refunds'].post
    update: {x-idempotent: false}
`})
	ov := filepath.Join(dir, "bad.yaml")
	_, diags, err := Load(filepath.Join(dir, "api.yaml"), Options{Overlays: []string{ov}})
	if err != nil {
		t.Fatal(err)
	}
	var never, target *ir.Diagnostic
	for i, d := range diags {
		switch d.Rule {
		case ruleRetryableNever:
			never = &diags[i]
		case ruleOverlayTarget:
			target = &diags[i]
		}
	}
	if never == nil || never.File != ov || never.Line != 7 || never.Column != 33 ||
		never.Pointer != "/paths/~1orders/post/x-retryable-status/1" || never.Operation != "createOrder" {
		t.Errorf("401 finding: %+v, want %s:7:33 at /paths/~1orders/post/x-retryable-status/1", never, ov)
	}
	if target == nil || target.File != ov || target.Line != 8 || target.Column != 13 || target.Severity != ir.SeverityWarning {
		t.Errorf("unmatched target: %+v, want a warning at %s:8:13", target, ov)
	}
}

// Several overlays apply in order: the later one sees (and overrides) what
// the earlier one did.
func TestOverlaysApplyInOrder(t *testing.T) {
	dir := writeFiles(t, map[string]string{"api.yaml": overlaySpec,
		"one.yaml": "overlay: 1.0.0\nactions:\n  - {target: $.paths.*.post, update: {x-idempotent: false}}\n",
		"two.yaml": "overlay: 1.0.0\nactions:\n  - {target: \"$.paths.*[?@['x-idempotent'] == false]\", update: {x-idempotent: true}}\n",
	})
	for _, tc := range []struct {
		order []string
		want  ir.Safety
	}{{[]string{"one.yaml", "two.yaml"}, ir.Idempotent}, {[]string{"two.yaml", "one.yaml"}, ir.Unsafe}} {
		var ovs []string
		for _, o := range tc.order {
			ovs = append(ovs, filepath.Join(dir, o))
		}
		api, _, err := Load(filepath.Join(dir, "api.yaml"), Options{Overlays: ovs})
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range api.Operations {
			if op.Method == "POST" && op.Retry.Safety != tc.want {
				t.Errorf("%v: createOrder is %v, want %v", tc.order, op.Retry.Safety, tc.want)
			}
		}
	}
}

func TestOverlayBadFile(t *testing.T) {
	dir := writeFiles(t, map[string]string{"api.yaml": overlaySpec, "v2.yaml": "overlay: 2.0.0\nactions: []\n"})
	ov := filepath.Join(dir, "v2.yaml")
	_, _, err := Load(filepath.Join(dir, "api.yaml"), Options{Overlays: []string{ov}})
	var ds ir.Diagnostics
	if !errors.As(err, &ds) || len(ds) != 1 || ds[0].Rule != ruleOverlay ||
		ds[0].String() != ov+`:1:10: overlay version "2.0.0" is not supported (1.0.x is)` {
		t.Errorf("got %v", err)
	}
}

// $ref confinement holds for references an overlay writes.
func TestOverlayRefStaysConfined(t *testing.T) {
	dir := writeFiles(t, map[string]string{"api/api.yaml": overlaySpec, "secret.yaml": "a: b\n",
		"api/ref.yaml": `overlay: 1.0.0
actions:
  - target: $.paths['/orders'].post.responses['201']
    update: {content: {application/json: {schema: {$ref: '../secret.yaml#/a'}}}}
`})
	ov := filepath.Join(dir, "api", "ref.yaml")
	_, diags, err := Load(filepath.Join(dir, "api", "api.yaml"), Options{Overlays: []string{ov}})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range diags {
		found = found || (d.Rule == ruleRefOutside && d.File == ov && d.Line == 4)
	}
	if !found {
		t.Errorf("no ref-outside error located in the overlay: %v", diags)
	}
}

// The overlays' growth budget is the loader's alias budget.
func TestOverlayBudgetIsTheLoadBudget(t *testing.T) {
	if overlay.MaxNodes != aliasBudget {
		t.Errorf("overlay.MaxNodes = %d, aliasBudget = %d", overlay.MaxNodes, aliasBudget)
	}
}

// An overlay refused for its cost is an error located in the overlay file,
// at the action's target, with the action's pointer; nothing is loaded.
func TestOverlayOverBudgetIsLocated(t *testing.T) {
	var spec strings.Builder
	spec.WriteString(overlaySpec + "components:\n  schemas:\n")
	for i := range 20000 {
		spec.WriteString("    S" + strings.Repeat("x", 3) + string(rune('a'+i%26)) + itoa(i) + ": {type: object, properties: {a: {type: string}}}\n")
	}
	dir := writeFiles(t, map[string]string{"api.yaml": spec.String(), "evil.yaml": `overlay: 1.0.0
actions:
  - target: $..[?count($..*) > 1]
    update: {x-evil: true}
`})
	ov := filepath.Join(dir, "evil.yaml")
	done := make(chan error, 1)
	go func() {
		_, _, err := Load(filepath.Join(dir, "api.yaml"), Options{Overlays: []string{ov}})
		done <- err
	}()
	timer := time.NewTimer(20 * time.Second)
	defer timer.Stop()
	var err error
	select {
	case err = <-done:
	case <-timer.C:
		t.Fatal("Load still running after 20 s: the overlay's target is not bounded")
	}
	var ds ir.Diagnostics
	if !errors.As(err, &ds) || len(ds) != 1 || ds[0].Rule != ruleOverlay || ds[0].Pointer != "/actions/0/target" ||
		!strings.HasPrefix(ds[0].String(), ov+":3:13: (/actions/0/target): action 0: target $..[?count($..[*]) > 1] could visit") {
		t.Errorf("got %v", err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
