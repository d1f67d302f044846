// Package specdiff compares two versions of an API, as the parser resolved
// them into the IR, and lists what changed for a client generated from the
// older one: first the retry contract (safety, idempotency key, retryable
// statuses, required preconditions), then the Go surface of the generated
// client (operations, parameters, members, types, enum constants, success
// responses and media types).
//
// It reads the IR only: the parser has already resolved every $ref, every
// x-idempotent form and every x-retryable-status level, and named every Go
// identifier, so a change the document spells differently but the client
// sees the same way is no change here, and a change oasdiff cannot see (a
// key header moved in an x-idempotent object, a retryable status list on a
// path item) is one.
package specdiff

import (
	"cmp"
	"slices"

	"github.com/idemgen/idemgen/ir"
)

// Area says which promise a change touches.
type Area string

const (
	// AreaContract is the retry contract: whether and how the old client may
	// resend a call.
	AreaContract Area = "retry-contract"
	// AreaSurface is the Go surface of the generated client: what a Go
	// caller compiles against and what it sends.
	AreaSurface Area = "go-surface"
)

// Change is one difference between OLD and NEW.
type Change struct {
	// Rule is a short stable identifier ("key-removed"); docs/cli.md lists
	// every rule.
	Rule string
	// Area is the promise the change touches.
	Area Area
	// Breaking is set when a client generated from OLD misbehaves, or a Go
	// caller of it stops compiling, against NEW.
	Breaking bool
	// Operation is the operationId (or derived name) the change belongs to;
	// empty for a change to a named type.
	Operation string
	// Pointer is the JSON pointer of the changed element: in NEW, or in OLD
	// when it is gone.
	Pointer string
	// At locates the change in NEW: the element itself, or the nearest
	// element around it that NEW still has.
	At ir.Source
	// Was locates the element in OLD; zero for an addition.
	Was ir.Source
	// Message says what changed and what it does to the old client.
	Message string
}

// Breaking reports whether any change breaks the old client.
func Breaking(cs []Change) bool {
	return slices.ContainsFunc(cs, func(c Change) bool { return c.Breaking })
}

// Compare lists the changes from old to new, sorted: breaking retry
// contract changes first, then breaking Go surface changes, then the rest;
// within each group by file, line and pointer.
func Compare(old, new *ir.API) []Change {
	d := &differ{old: old, new: new, requestTypes: requestTypes(new)}
	d.operations()
	d.schemas()
	return sortChanges(d.out)
}

// differ collects the changes of one comparison.
type differ struct {
	old, new *ir.API
	// requestTypes are NEW's named types a request can carry, where a member
	// made required breaks an old caller that leaves it out.
	requestTypes map[string]bool
	out          []Change
}

func (d *differ) add(c Change) {
	if c.At.File == "" {
		c.At = d.new.Source
	}
	d.out = append(d.out, c)
}

// group orders the three groups of the report.
func group(c Change) int {
	switch {
	case c.Breaking && c.Area == AreaContract:
		return 0
	case c.Breaking:
		return 1
	}
	return 2
}

func sortChanges(cs []Change) []Change {
	slices.SortStableFunc(cs, func(a, b Change) int {
		return cmp.Or(
			cmp.Compare(group(a), group(b)),
			cmp.Compare(a.At.File, b.At.File),
			cmp.Compare(a.At.Line, b.At.Line),
			cmp.Compare(a.Pointer, b.Pointer),
			cmp.Compare(a.Rule, b.Rule),
			cmp.Compare(a.Message, b.Message),
		)
	})
	// A change reached twice (one shared response seen from two of its
	// statuses) is reported once.
	return slices.Compact(cs)
}
