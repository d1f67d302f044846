package overlay

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v4"
)

// bigDoc is a document of about 1.5 MB: 50,000 small objects under paths.
func bigDoc(t *testing.T) *yaml.Node {
	t.Helper()
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n")
	for i := range 50000 {
		fmt.Fprintf(&b, "  /p%d: {get: {x: [1, 2]}}\n", i)
	}
	return tree(t, b.String())
}

// applyWithin runs Apply, failing the test if it takes more than a few
// seconds instead of hanging the run (the cases below used to take minutes).
func applyWithin(t *testing.T, root *yaml.Node, d *Document) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := Apply(root, []*Document{d})
		done <- err
	}()
	timer := time.NewTimer(20 * time.Second)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
		t.Fatal("Apply still running after 20 s: the overlay is not bounded")
		return nil
	}
}

// TestApplyBoundsQueryWork: a filter evaluating a descendant query from the
// root for every node of a 1.5 MB document (N^2 node visits: over 60 s) is
// refused before it runs, with an error naming the overlay file, the
// action and its pointer.
func TestApplyBoundsQueryWork(t *testing.T) {
	root := bigDoc(t)
	d := mustParse(t, "evil.yaml", `overlay: 1.0.0
actions:
  - {target: '$.info', update: {x-ok: true}}
  - {target: '$..[?count($..*) > 1]', update: {x-evil: true}}
`)
	err := applyWithin(t, root, d)
	var e *Error
	if !errors.As(err, &e) || e.File != "evil.yaml" || e.Line != 4 || e.Pointer != "/actions/1/target" ||
		!strings.Contains(e.Message, "action 1") || !strings.Contains(e.Message, "node budget") {
		t.Fatalf("got %#v (%v), want a located budget error at /actions/1/target", e, err)
	}
}

// TestApplyBoundsGrowth: 40 actions that each copy the whole document into
// itself (a merge into a member that aliases the document root copies the
// root, with every earlier copy in it) would double it 40 times; growth
// past the node budget is refused.
func TestApplyBoundsGrowth(t *testing.T) {
	var doc, ov strings.Builder
	doc.WriteString("&r\nopenapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n")
	ov.WriteString("overlay: 1.0.0\nactions:\n")
	for i := range 40 {
		fmt.Fprintf(&doc, "s%d: *r\n", i)
		fmt.Fprintf(&ov, "  - {target: $, update: {s%d: {x: 1}}}\n", i)
	}
	d := mustParse(t, "grow.yaml", ov.String())
	err := applyWithin(t, tree(t, doc.String()), d)
	var e *Error
	if !errors.As(err, &e) || e.File != "grow.yaml" || !strings.HasPrefix(e.Pointer, "/actions/") ||
		!strings.Contains(e.Message, fmt.Sprint(MaxNodes)) {
		t.Fatalf("got %#v (%v), want a located growth error", e, err)
	}
}
