package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const overlayAPI = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /orders:
    post:
      operationId: createOrder
      responses:
        "201": {description: created}
`

// TestLintOverlay runs lint with the real parser: a finding about a value an
// overlay added is located in the overlay, an unmatched target is a warning
// at its action, and a bad overlay is a located error (exit 1).
func TestLintOverlay(t *testing.T) {
	dir := t.TempDir()
	spec, ov, bad := filepath.Join(dir, "api.yaml"), filepath.Join(dir, "ov.yaml"), filepath.Join(dir, "bad.yaml")
	writeFile(t, spec, overlayAPI)
	writeFile(t, ov, `overlay: 1.0.0
info: {title: retry, version: "1"}
actions:
  - target: $.paths['/orders'].post
    update: {x-idempotent: false, x-retryable-status: [401]}
  - target: $.paths['/refunds'].post
    update: {x-idempotent: false}
`)
	writeFile(t, bad, "overlay: 1.0.0\ninfo: {title: b, version: '1'}\n")
	var out, errOut bytes.Buffer
	code := runWith(defaultToolchain(), []string{"lint", "--overlay", ov, spec}, &out, &errOut)
	for _, want := range []string{
		"error: " + ov + ":5:56: createOrder (/paths/~1orders/post/x-retryable-status/0): 401 is never retried",
		"warning: " + ov + ":6:13: target $.paths['/refunds'].post matches nothing; the action does nothing [overlay-target]",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("lint output lacks %q:\n%s", want, out.String())
		}
	}
	if code != exitProblem {
		t.Errorf("exit %d, want %d", code, exitProblem)
	}
	out.Reset()
	code = runWith(defaultToolchain(), []string{"lint", "--overlay", bad, spec}, &out, &errOut)
	if want := "error: " + bad + ":1:1: no `actions` list [overlay]\n"; code != exitProblem || !strings.HasPrefix(out.String(), want) {
		t.Errorf("bad overlay: exit %d, output %q, want %q", code, out.String(), want)
	}
}

// The config's overlays resolve against its folder; --overlay replaces them.
func TestConfigOverlays(t *testing.T) {
	root := t.TempDir()
	cfg := filepath.Join(root, "build", "idemgen.yaml")
	writeFile(t, cfg, "spec: api.yaml\npackage: orders\nout: out\noverlays: [a.yaml, ../b.yaml]\n")
	f := &fake{files: twoFiles}
	if r := runFake(t, f, "generate", "--config", cfg); r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	want := []string{filepath.Join(root, "build", "a.yaml"), filepath.Join(root, "b.yaml")}
	if !slices.Equal(f.overlays, want) {
		t.Errorf("overlays %v, want %v", f.overlays, want)
	}
	f = &fake{files: twoFiles}
	if r := runFake(t, f, "generate", "--config", cfg, "--overlay", "c.yaml", "--overlay", "d.yaml"); r.code != exitOK ||
		!slices.Equal(f.overlays, []string{"c.yaml", "d.yaml"}) {
		t.Errorf("exit %d, overlays %v, want [c.yaml d.yaml]", r.code, f.overlays)
	}
}

// TestMockCommandOverlay serves a document through an overlay: an operation
// the overlay removes is gone, one it adds a key to replays by key, and an
// unmatched target is printed at startup with the overlay's location.
func TestMockCommandOverlay(t *testing.T) {
	dir := t.TempDir()
	ov := filepath.Join(dir, "ov.yaml")
	writeFile(t, ov, `overlay: 1.0.0
info: {title: mock, version: "1"}
actions:
  - target: $.paths['/health']
    remove: true
  - target: $.paths['/nowhere'].get
    update: {x-idempotent: true}
`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, stderr, done := startMockCommand(t, ctx, "../../testdata/specs/orders.yaml", "--addr", "127.0.0.1:0", "--quiet", "--overlay", ov)
	resp, err := http.Get(base + "/health")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /health after the overlay removed it: %d, want 404", resp.StatusCode)
	}
	stopMockCommand(t, cancel, done)
	if want := "warning: " + ov + ":6:13: target $.paths['/nowhere'].get matches nothing"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
	}
	var errOut bytes.Buffer
	writeFile(t, ov, "overlay: 3.0.0\nactions: []\n")
	if code := runWith((&fake{}).toolchain(), []string{"mock", "../../testdata/specs/orders.yaml", "--overlay", ov}, io.Discard, &errOut); code != exitProblem ||
		!strings.Contains(errOut.String(), ov+`:1:10: overlay version "3.0.0" is not supported`) {
		t.Errorf("bad overlay: exit %d, %s", code, errOut.String())
	}
}

// TestAnnotateOverlayOut writes the annotations as an overlay, leaves the
// spec byte for byte, and lint through the overlay finds nothing left to
// annotate.
func TestAnnotateOverlayOut(t *testing.T) {
	dir := t.TempDir()
	spec, ov := filepath.Join(dir, "api.yaml"), filepath.Join(dir, "overlays", "keys.yaml")
	writeFile(t, spec, overlayAPI)
	writeFile(t, filepath.Join(dir, "overlays", ".keep"), "")
	var out, errOut bytes.Buffer
	tc := defaultToolchain()
	if code := runWith(tc, []string{"annotate", "--key-header", "Idempotency-Key", "--overlay-out", ov, spec}, &out, &errOut); code != exitOK || out.Len() != 0 {
		t.Fatalf("annotate: exit %d, stdout %q, stderr %s", code, out.String(), errOut.String())
	}
	if got := readFile(t, spec); got != overlayAPI {
		t.Errorf("the spec changed:\n%s", got)
	}
	want := `overlay: 1.0.0
info:
  title: "idemgen x-idempotent annotations for api.yaml"
  version: 1.0.0
extends: "../api.yaml"
actions:
  - target: "$.paths['/orders'].post"
    update:
      x-idempotent:
        key:
          in: header
          name: "Idempotency-Key"
`
	if got := readFile(t, ov); got != want {
		t.Errorf("overlay:\n%s\nwant:\n%s", got, want)
	}
	out.Reset()
	if code := runWith(tc, []string{"lint", "--strict", "--overlay", ov, spec}, &out, &errOut); code != exitOK {
		t.Errorf("lint through the overlay: exit %d\n%s", code, out.String())
	}
	out.Reset()
	if code := runWith(tc, []string{"annotate", "--key-header", "X-Key", spec}, &out, &errOut); code != exitOK ||
		!strings.Contains(out.String(), "\n+      x-idempotent:\n+        key:\n+          in: header\n+          name: X-Key\n") {
		t.Errorf("diff with --key-header: exit %d\n%s", code, out.String())
	}
	for _, args := range [][]string{
		{"annotate", "--overlay-out", ov, "-w", spec},
		{"annotate", "--overlay-out", ov, spec, spec},
		{"annotate", "--key-header", "Idempotency Key", spec},
	} {
		if code := runWith(tc, args, io.Discard, io.Discard); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	return string(readBytes(t, path))
}
