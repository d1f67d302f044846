package main

import (
	"testing"

	"github.com/idemgen/idemgen/harness/specpairs"
	"github.com/idemgen/idemgen/internal/testutil"
)

// TestPetstoreAgainstOasdiff runs idemgen diff and the pinned oasdiff on the
// petstore pair (five edits: the key header moved, 500 made retryable,
// deletePet declared unsafe, limit an int64, NewPet's tag required). Both
// report the tag; only idemgen reports the three retry-contract edits,
// which live in extensions oasdiff does not read, and the Go type changes
// (limit's field *int32 -> *int64, Pet.Tag *string -> string) that oasdiff
// files as compatible (a widened format, a response property made
// required).
func TestPetstoreAgainstOasdiff(t *testing.T) {
	shared := testutil.RealSpecs(t, "builds oasdiff with go run")
	dir := t.TempDir()
	tools, err := newTools(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := specpairs.Petstore(shared, dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := tools.compare(p)
	if err != nil {
		t.Fatal(err)
	}
	i, o := r.idemgenSummary(), r.oasdiffSummary()
	t.Logf("\n%s", markdown([]result{r}))
	if i.contract != 6 || i.rules["key-moved"] != 1 || i.rules["became-unsafe"] != 1 || i.rules["param-type"] != 1 || i.rules["member-required"] != 2 {
		t.Errorf("idemgen: %+v", i)
	}
	if o.breaking != 1 || o.rules["request-property-became-required"] != 1 {
		t.Errorf("oasdiff: %+v", o)
	}
}
