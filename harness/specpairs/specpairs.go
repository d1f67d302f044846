// Package specpairs provides the real pairs of API versions that `idemgen
// diff` is judged on, to its own tests (specdiff) and to the
// comparison with oasdiff (bench/cmd/diffpeer): two releases of stripe-mock's
// spec3.json from the module cache, Stripe's 2023-08-16 document of
// ../shared/specs against the newer release, and petstore-expanded.yaml of
// ../shared/specs against a copy with known edits, derived here (the shared
// documents are never edited).
package specpairs

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Stripe-mock releases of the stripe pair: OldStripeMock (spec3.json of
// API 2022-11-15) and NewStripeMock, the release .ci/run installs (API
// 2026-08-26). Both are served by the Go module proxy.
const (
	OldStripeMock = "v0.162.0"
	NewStripeMock = "v0.203.0"
)

// Pair is an OLD and a NEW document.
type Pair struct {
	Name     string
	Old, New string
}

// StripeMockSpec returns the path of spec3.json in stripe-mock at version,
// downloading the module into the module cache when it is not there (go
// mod download -json).
func StripeMockSpec(version string) (string, error) {
	out, err := exec.Command("go", "mod", "download", "-json", "github.com/stripe/stripe-mock@"+version).Output()
	var mod struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &mod); jerr != nil || mod.Dir == "" {
		return "", fmt.Errorf("go mod download github.com/stripe/stripe-mock@%s: %v %s", version, err, mod.Error)
	}
	spec := filepath.Join(mod.Dir, "embedded", "openapi", "spec3.json")
	if _, err := os.Stat(spec); err != nil {
		return "", err
	}
	return spec, nil
}

// Stripe returns stripe-mock's spec3.json at OldStripeMock and at
// NewStripeMock.
func Stripe() (Pair, error) {
	old, err := StripeMockSpec(OldStripeMock)
	if err != nil {
		return Pair{}, err
	}
	new, err := StripeMockSpec(NewStripeMock)
	return Pair{Name: "stripe-mock " + OldStripeMock + " -> " + NewStripeMock, Old: old, New: new}, err
}

// StripeShared returns Stripe's document of ../shared/specs (API
// 2023-08-16) and stripe-mock's at NewStripeMock.
func StripeShared(shared string) (Pair, error) {
	old := filepath.Join(shared, "stripe-spec3-2023-09.yaml")
	if _, err := os.Stat(old); err != nil {
		return Pair{}, err
	}
	new, err := StripeMockSpec(NewStripeMock)
	return Pair{Name: "stripe-spec3-2023-09.yaml -> stripe-mock " + NewStripeMock, Old: old, New: new}, err
}

// petstoreEdits turn petstore-expanded.yaml into the pair's OLD (addPet
// keyed by Idempotency-Key, as `idemgen annotate --key-header` writes it)
// and then into its NEW. Each edit is one change a reviewer would make.
var (
	petstoreOld = []edit{
		{"      operationId: addPet\n", "      operationId: addPet\n      x-idempotent:\n        key: {in: header, name: Idempotency-Key}\n"},
	}
	petstoreNew = []edit{
		// The key moves to another header: key-moved.
		{"name: Idempotency-Key}", "name: X-Idempotency-Key}"},
		// Every operation retries on 500 too: retryable-added.
		{"servers:\n", "x-retryable-status: [408, 429, 500, 502, 503, 504]\nservers:\n"},
		// deletePet is declared unsafe: became-unsafe.
		{"      operationId: deletePet\n", "      operationId: deletePet\n      x-idempotent: false\n"},
		// limit is an int64: param-type.
		{"            type: integer\n            format: int32\n", "            type: integer\n            format: int64\n"},
		// NewPet requires a tag: member-required.
		{"        - name  \n", "        - name\n        - tag\n"},
	}
)

type edit struct{ from, to string }

func apply(doc string, edits []edit) (string, error) {
	for _, e := range edits {
		if !strings.Contains(doc, e.from) {
			return "", fmt.Errorf("edit %q: not found", e.from)
		}
		doc = strings.Replace(doc, e.from, e.to, 1)
	}
	return doc, nil
}

// Petstore writes the petstore pair into dir from petstore-expanded.yaml of
// ../shared/specs.
func Petstore(shared, dir string) (Pair, error) {
	src, err := os.ReadFile(filepath.Join(shared, "petstore-expanded.yaml"))
	if err != nil {
		return Pair{}, err
	}
	old, err := apply(string(src), petstoreOld)
	if err != nil {
		return Pair{}, err
	}
	new, err := apply(old, petstoreNew)
	if err != nil {
		return Pair{}, err
	}
	p := Pair{Name: "petstore-expanded.yaml -> edited copy", Old: filepath.Join(dir, "petstore.old.yaml"), New: filepath.Join(dir, "petstore.new.yaml")}
	return p, errors.Join(os.WriteFile(p.Old, []byte(old), 0o644), os.WriteFile(p.New, []byte(new), 0o644))
}
