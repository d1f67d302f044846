package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/idemgen/idemgen/generator"
	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/ir"
	"github.com/idemgen/idemgen/parser"
)

// TestStripeOverlayRoundTrip is the workflow for a spec one does not own:
// `annotate --key-header Idempotency-Key --overlay-out` on the Stripe
// document writes an overlay, and the document plus that overlay generates
// (parser and generator, in process) a client whose every POST is keyed by
// Idempotency-Key, while the document stays byte for byte as published.
func TestStripeOverlayRoundTrip(t *testing.T) {
	dir := testutil.RealSpecs(t, "slow: loads and generates the 4 MB Stripe document")
	spec := filepath.Join(dir, "stripe-spec3-2023-09.yaml")
	before := readBytes(t, spec)
	ov := filepath.Join(t.TempDir(), "stripe.overlay.yaml")
	var stderr bytes.Buffer
	args := []string{"annotate", "--key-header", "Idempotency-Key", "--overlay-out", ov, spec}
	if code := runWith(defaultToolchain(), args, &stderr, &stderr); code != exitOK {
		t.Fatalf("annotate: exit %d\n%s", code, stderr.String())
	}

	api, diags, err := parser.Load(spec, parser.Options{Overlays: []string{ov}})
	if err != nil || diags.HasErrors() {
		t.Fatalf("load with the overlay: %v %v", err, diags.Errors())
	}
	for _, d := range diags {
		if d.Rule == "unannotated-unsafe" || d.Rule == "overlay-target" || d.Rule == "overlay-action" {
			t.Errorf("left over: %s [%s]", d, d.Rule)
		}
	}
	posts, keyed := 0, 0
	for _, op := range api.Operations {
		if op.Retry.Safety == ir.Keyed {
			keyed++
		}
		if op.Method != "POST" {
			continue
		}
		posts++
		if op.Retry.Safety != ir.Keyed || op.Retry.KeyName != "Idempotency-Key" || op.Retry.Kind != ir.IdempotencyKeyed {
			t.Errorf("%s (POST %s): %v by %q, want keyed by Idempotency-Key", op.ID, op.Path, op.Retry.Safety, op.Retry.KeyName)
		}
	}

	out, err := generator.Generate(api, generator.Config{Package: "stripe"})
	if err != nil {
		t.Fatal(err)
	}
	keyedOps := regexp.MustCompile(`Safety:\s+idemrt\.Keyed,\s+KeyHeader:\s+"Idempotency-Key",`)
	generated := 0
	for _, f := range out.Files {
		generated += len(keyedOps.FindAll(f.Content, -1))
	}
	if posts == 0 || generated != keyed {
		t.Errorf("%d POST operations; %d keyed in the IR, %d keyed idemrt.Operation values generated", posts, keyed, generated)
	}
	if !bytes.Equal(readBytes(t, spec), before) {
		t.Error("the Stripe document changed")
	}
	t.Logf("%d operations, %d POST, %d keyed (IR), %d keyed idemrt.Operation values; overlay %d bytes",
		len(api.Operations), posts, keyed, generated, len(readBytes(t, ov)))
}

func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
