package main

import (
	"path/filepath"
	"testing"
)

// TestServerSetting: `server: true` in the config and --server both ask for
// the server; the flag overrides the config.
func TestServerSetting(t *testing.T) {
	root := t.TempDir()
	cfg := filepath.Join(root, "idemgen.yaml")
	writeFile(t, cfg, "spec: orders.yaml\npackage: orders\nout: out\nserver: true\n")
	f := &fake{files: twoFiles}
	if r := runFake(t, f, "generate", "--config", cfg); r.code != exitOK || !f.server {
		t.Errorf("config server: true: exit %d, server %v (%s)", r.code, f.server, r.stderr)
	}
	f = &fake{files: twoFiles}
	if r := runFake(t, f, "generate", "--config", cfg, "--server=false"); r.code != exitOK || f.server {
		t.Errorf("--server=false over the config: exit %d, server %v", r.code, f.server)
	}
	f = &fake{files: twoFiles}
	if r := runFake(t, f, "generate", "orders.yaml", "-p", "orders", "-o", filepath.Join(root, "o2"), "--server"); r.code != exitOK || !f.server {
		t.Errorf("--server: exit %d, server %v", r.code, f.server)
	}
}
