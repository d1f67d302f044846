package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefRootFlag: a spec in api/ whose $ref reads ../shared.yaml is refused
// by lint and generate (a located ref-outside error, nothing written), and
// accepted with --ref-root naming the parent folder, on the command line or
// in the config file (relative to it).
func TestRefRootFlag(t *testing.T) {
	root := t.TempDir()
	spec := filepath.Join(root, "api", "orders.yaml")
	writeFile(t, spec, "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /o:\n    get:\n      operationId: getO\n"+
		"      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n"+
		"              schema: {$ref: '../shared.yaml#/Order'}\n")
	writeFile(t, filepath.Join(root, "shared.yaml"), "Order:\n  type: object\n  properties:\n    id: {type: string}\n")
	out := filepath.Join(root, "out")

	var stdout, stderr bytes.Buffer
	if code := run([]string{"lint", spec}, &stdout, &stderr); code != exitProblem ||
		!strings.Contains(stdout.String(), "orders.yaml:12:23: getO (/paths/~1o/get/responses/200/content/application~1json/schema): reference \"../shared.yaml#/Order\" refused") ||
		!strings.Contains(stdout.String(), "[ref-outside]") {
		t.Errorf("lint without --ref-root: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"generate", spec, "-p", "orders", "-o", out}, &stdout, &stderr); code != exitProblem || !strings.Contains(stderr.String(), "[ref-outside]") {
		t.Errorf("generate without --ref-root: exit %d\n%s", code, stderr.String())
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused generate wrote its output")
	}
	for _, args := range [][]string{
		{"lint", "--strict", "--ref-root", root, spec},
		{"generate", spec, "-p", "orders", "-o", out, "--ref-root", root},
	} {
		stdout.Reset()
		stderr.Reset()
		if code := run(args, &stdout, &stderr); code != exitOK {
			t.Errorf("%v: exit %d\n%s%s", args, code, stdout.String(), stderr.String())
		}
	}
	if data, err := os.ReadFile(filepath.Join(out, "models_gen.go")); err != nil || !bytes.Contains(data, []byte("type Order struct")) {
		t.Errorf("generated models lack Order: %v", err)
	}
	cfg := filepath.Join(root, "build", "idemgen.yaml")
	writeFile(t, cfg, "spec: ../api/orders.yaml\npackage: orders\nout: ../out2\nref-root: ..\n")
	if code := run([]string{"generate", "--config", cfg}, &stdout, &stderr); code != exitOK {
		t.Errorf("config with ref-root: exit %d\n%s", code, stderr.String())
	}
}
