package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// TestServerFlagWritesWebhookReceiver: --server (or server: true in the
// config) adds webhook_receiver_gen.go for a document with webhooks;
// without it the output is the client alone.
func TestServerFlagWritesWebhookReceiver(t *testing.T) {
	spec := filepath.Join(testutil.ModuleRoot(t), "testdata", "specs", "webhooks.yaml")
	dir := t.TempDir()
	config := filepath.Join(dir, "idemgen.yaml")
	writeFile(t, config, "spec: "+spec+"\npackage: hooks\nout: cfg\nserver: true\n")
	for _, c := range []struct {
		name string
		args []string
		out  string
		want bool
	}{
		{"flag", []string{"generate", spec, "--package", "hooks", "--out", filepath.Join(dir, "flag"), "--server"}, "flag", true},
		{"config", []string{"generate", "--config", config}, "cfg", true},
		{"neither", []string{"generate", spec, "--package", "hooks", "--out", filepath.Join(dir, "none")}, "none", false},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(c.args, &stdout, &stderr); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, stderr.String())
		}
		_, err := os.Stat(filepath.Join(dir, c.out, "webhook_receiver_gen.go"))
		if got := err == nil; got != c.want {
			t.Errorf("%s: webhook_receiver_gen.go written %v, want %v", c.name, got, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, c.out, "client_gen.go")); err != nil {
			t.Errorf("%s: no client: %v", c.name, err)
		}
	}
}
