package annotate

import (
	"errors"
	"fmt"
)

// ErrUnsafeLayout reports a rewrite that did not read back as intended: the
// splicer met a layout it mishandles. Annotate returns it instead of a
// document that might mean something else; it is a bug worth reporting.
var ErrUnsafeLayout = errors.New("annotate cannot edit this document's layout safely (the rewrite did not read back as intended); please report it")

// verify parses the rewrite and checks that it holds exactly the original
// document plus the planned x-idempotent entries. It is the safety net that
// makes splicing text trustworthy on layouts nobody thought of.
func verify(orig *node, out []byte, isJSON bool, edits []Edit, pages []PageEdit, waiters []WaiterEdit, lookups []LookupEdit) error {
	idx := newLineIndex(out)
	var root *node
	var err error
	if isJSON {
		root, err = parseJSON(out, idx)
	} else {
		root, err = parseYAML(out, idx)
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnsafeLayout, err)
	}
	c := comparer{edited: map[*node]map[string]bool{}, seen: map[[2]*node]bool{}}
	paths := root.get("paths")
	for _, e := range edits {
		op := entry(entry(paths, e.pathIndex), e.opIndex)
		if op == nil || !holds(op.get("x-idempotent"), e) {
			return fmt.Errorf("%w: %s %s", ErrUnsafeLayout, e.Method, e.Path)
		}
		c.add(op, "x-idempotent")
	}
	for _, e := range pages {
		op := entry(entry(paths, e.pathIndex), e.opIndex)
		if op == nil || !holdsPage(op.get("x-pagination"), e) {
			return fmt.Errorf("%w: %s %s", ErrUnsafeLayout, e.Method, e.Path)
		}
		c.add(op, "x-pagination")
	}
	for _, e := range waiters {
		op := entry(entry(paths, e.pathIndex), e.opIndex)
		if op == nil || !holdsWaiters(op.get("x-waiters"), e) {
			return fmt.Errorf("%w: %s %s", ErrUnsafeLayout, e.Method, e.Path)
		}
		c.add(op, "x-waiters")
	}
	for _, e := range lookups {
		op := entry(entry(paths, e.pathIndex), e.opIndex)
		if op == nil || !holdsLookup(op.get("x-lookup"), e) {
			return fmt.Errorf("%w: %s %s", ErrUnsafeLayout, e.Method, e.Path)
		}
		c.add(op, "x-lookup")
	}
	if !c.same(orig, root) {
		return ErrUnsafeLayout
	}
	return nil
}

// entry returns the i-th value of a mapping, or nil.
func entry(n *node, i int) *node {
	if n == nil || n.kind != kindMap || i >= len(n.vals) {
		return nil
	}
	return n.vals[i]
}

// holds reports whether v is the x-idempotent value the edit meant to add.
func holds(v *node, e Edit) bool {
	if v == nil {
		return false
	}
	if e.Value != Keyed {
		return v.kind == kindScalar && v.value == e.Value.String()
	}
	key := v.get("key")
	return len(v.keys) == 1 && len(key.keys) == 2 && key.str("in") == "header" && key.str("name") == e.KeyName
}

// comparer compares two trees, skipping the added entry in edited mappings.
// seen memoises pairs already compared, so documents that share subtrees
// through many aliases are compared in linear time.
type comparer struct {
	edited map[*node]map[string]bool // the members added to each mapping
	seen   map[[2]*node]bool
}

func (c *comparer) add(n *node, member string) {
	if c.edited[n] == nil {
		c.edited[n] = map[string]bool{}
	}
	c.edited[n][member] = true
}

func (c *comparer) same(a, b *node) bool {
	if a.kind != b.kind {
		return false
	}
	pair := [2]*node{a, b}
	if c.seen[pair] {
		return true
	}
	c.seen[pair] = true // a false result ends the whole comparison anyway
	switch a.kind {
	case kindScalar:
		return a.value == b.value
	case kindSeq:
		return c.sameList(a.items, b.items)
	}
	bKeys, bVals := b.keys, b.vals
	if added := c.edited[b]; added != nil {
		bKeys, bVals = nil, nil
		for i, k := range b.keys {
			if !added[k.value] {
				bKeys, bVals = append(bKeys, k), append(bVals, b.vals[i])
			}
		}
	}
	return c.sameList(a.keys, bKeys) && c.sameList(a.vals, bVals)
}

func (c *comparer) sameList(a, b []*node) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !c.same(a[i], b[i]) {
			return false
		}
	}
	return true
}
