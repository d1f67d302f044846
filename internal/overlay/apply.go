package overlay

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/theory/jsonpath/spec"
	"go.yaml.in/yaml/v4"
)

// Rules of the findings Apply reports; the parser reports them under these
// ids (docs/extensions.md lists them).
const (
	// RuleTarget: a target that selects nothing.
	RuleTarget = "overlay-target"
	// RuleAction: an action that cannot apply to a selected node (an update
	// of a scalar, a non-object update of an object, a removal of the root).
	RuleAction = "overlay-action"
)

// Finding is a warning about one action, located at its target in the
// overlay file.
type Finding struct {
	Rule         string
	File         string
	Line, Column int
	Target       string
	Message      string
}

// Applied is what Apply did.
type Applied struct {
	// Origins maps every node an update brought into the tree to the name
	// of the overlay file it was written in.
	Origins map[*yaml.Node]string
	// Findings are in the order of the actions.
	Findings []Finding
	// Changed reports whether the tree was changed at all.
	Changed bool
}

// MaxNodes bounds the nodes the overlays may add (YAML aliases in an update
// are expanded when it is copied), as the parser bounds a document's
// aliases.
const MaxNodes = 2 << 20

// ErrTooLarge reports an overlay, or a document, whose YAML aliases expand
// beyond MaxNodes.
var ErrTooLarge = fmt.Errorf("YAML aliases expand beyond %d nodes (an alias bomb?); refused", MaxNodes)

// errGrowth reports actions that together would add more than MaxNodes
// nodes to the document by copying parts of it.
var errGrowth = fmt.Errorf("the actions would add more than %d nodes to the document (an action copying the document into itself?); refused", MaxNodes)

// Apply applies the actions of docs, in order, to the document tree root (a
// mapping, changed in place). An error is an *Error located at the action
// that failed.
func Apply(root *yaml.Node, docs []*Document) (*Applied, error) {
	st := &state{root: root, origins: map[*yaml.Node]string{}}
	res := &Applied{Origins: st.origins}
	for _, d := range docs {
		for i, a := range d.Actions {
			if err := st.apply(d.Name, a, res); err != nil {
				e := errorAt(d.Name, a.Node, "action %d: %v", i, err)
				e.Pointer = fmt.Sprintf("/actions/%d/target", i)
				return nil, e
			}
		}
	}
	return res, nil
}

// state is the tree being changed and its plain-value view, which JSONPath
// queries run on. The view is built when the first query that is not a
// plain chain of names and indexes needs it (an annotate overlay, one
// `$.paths['/x'].post` per operation, never does: converting a 4 MB
// document doubled the time and memory of a load). Once built, it is kept
// in step with the tree: the changed subtree is converted again after every
// action, or the whole tree when it holds YAML aliases (a change under an
// anchor shows at every alias).
type state struct {
	root    *yaml.Node
	view    any
	aliased bool
	origins map[*yaml.Node]string
	added   int // nodes cloned from overlays, against MaxNodes
	// converted counts the nodes converted for the view, against
	// maxConverted.
	converted int
	// shape bounds the view's size and depth, for queryCost: set when the
	// view is built, then raised by every subtree converted into it (never
	// lowered, so an upper bound).
	shape shape
}

// maxConverted bounds the work of building the view and keeping it in step
// with the tree (a large document is about a million nodes).
const maxConverted = 16 * MaxNodes

// errTooMuchWork reports overlays whose queries would convert more than
// maxConverted nodes for the view.
var errTooMuchWork = fmt.Errorf("applying the overlays would convert more than %d nodes for JSONPath queries; refused", maxConverted)

func (st *state) refresh() error {
	st.shape = shape{}
	v, err := st.convert(st.root, 0)
	st.view = v
	return err
}

// convert converts a subtree for the view, charging its nodes to the
// conversion budget: nested targets of one action are converted once (see
// sync), but many actions on a large tree could still convert it many times.
func (st *state) convert(n *yaml.Node, depth int) (any, error) {
	c := converter{limit: maxConverted - st.converted}
	v, ok := c.toAny(n)
	st.converted += c.nodes
	st.aliased = st.aliased || c.aliased
	st.shape.nodes += float64(c.nodes)
	st.shape.depth = max(st.shape.depth, float64(depth+c.maxDepth))
	if !ok {
		return nil, errTooMuchWork
	}
	return v, nil
}

func (st *state) apply(file string, a Action, res *Applied) error {
	warn := func(rule, format string, args ...any) {
		res.Findings = append(res.Findings, Finding{Rule: rule, File: file, Line: a.Node.Line, Column: a.Node.Column,
			Target: a.Target, Message: fmt.Sprintf(format, args...)})
	}
	paths, err := st.selectPaths(a)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		warn(RuleTarget, "target %s matches nothing; the action does nothing", a.Target)
		return nil
	}
	// Later siblings first, so removing one never shifts the index of
	// another still to be removed.
	slices.SortFunc(paths, func(x, y spec.NormalizedPath) int { return y.Compare(x) })
	var changed []spec.NormalizedPath
	for _, p := range paths {
		ok, err := st.applyAt(file, a, p, warn)
		if err != nil {
			return err
		}
		if ok {
			changed = append(changed, p)
		}
	}
	res.Changed = res.Changed || len(changed) > 0
	return st.sync(changed, a.Remove)
}

// selectPaths returns the normalized paths of the nodes a's target selects.
func (st *state) selectPaths(a Action) ([]spec.NormalizedPath, error) {
	if sels, ok := chain(a.Path.Query()); ok {
		if p, found := resolve(st.root, sels); found {
			return []spec.NormalizedPath{p}, nil
		}
		return nil, nil
	}
	if st.view == nil {
		if err := st.refresh(); err != nil {
			return nil, err
		}
	}
	if err := checkQueryCost(a.Path, st.shape); err != nil {
		return nil, err
	}
	found := a.Path.SelectLocated(st.view)
	paths := make([]spec.NormalizedPath, len(found))
	for i, f := range found {
		paths[i] = f.Path
	}
	return paths, nil
}

// applyAt runs the action on the node at p and reports whether it changed
// the tree.
func (st *state) applyAt(file string, a Action, p spec.NormalizedPath, warn func(rule, format string, args ...any)) (bool, error) {
	parent, idx, n := nodeAt(st.root, p)
	if n == nil {
		return false, nil // inside a node an earlier match removed
	}
	if a.Remove {
		if parent == nil {
			warn(RuleAction, "target %s selects the document root, which cannot be removed", a.Target)
			return false, nil
		}
		removeChild(parent, idx)
		return true, nil
	}
	if a.Update == nil {
		warn(RuleAction, "action on %s has neither `update` nor `remove`; it does nothing", a.Target)
		return false, nil
	}
	switch {
	case n.Kind == yaml.MappingNode && a.Update.Kind == yaml.MappingNode:
		return true, st.merge(file, n, a.Update)
	case n.Kind == yaml.SequenceNode:
		c, err := st.clone(file, a.Update)
		n.Content = append(n.Content, c)
		return true, err
	case n.Kind == yaml.MappingNode:
		warn(RuleAction, "target %s selects an object (%s), but the update is not an object; skipped", a.Target, p)
	default:
		warn(RuleAction, "target %s selects a value that is neither an object nor an array (%s); skipped", a.Target, p)
	}
	return false, nil
}

// merge merges the mapping src into dst: members of both that are objects
// on both sides are merged in turn, any other member of src replaces dst's
// or is appended to it (Overlay 1.0).
func (st *state) merge(file string, dst, src *yaml.Node) error {
	src = unalias(src)
	for i := 0; i+1 < len(src.Content); i += 2 {
		k, v := src.Content[i], unalias(src.Content[i+1])
		j := lastKey(dst, k.Value)
		if j >= 0 {
			dv := dst.Content[j+1]
			if a := unalias(dv); a.Kind == yaml.MappingNode && v.Kind == yaml.MappingNode {
				if dv.Kind == yaml.AliasNode {
					// Merging into the anchor would change every alias of
					// it; this member gets its own copy, charged to the
					// budget: with the anchor on the document root, each
					// such merge doubles the document.
					if st.added += writtenSize(a); st.added > MaxNodes {
						return errGrowth
					}
					dv = deepCopy(a)
					dst.Content[j+1] = dv
				}
				if err := st.merge(file, dv, v); err != nil {
					return err
				}
				continue
			}
		}
		cv, err := st.clone(file, v)
		if err != nil {
			return err
		}
		if j >= 0 {
			dst.Content[j+1] = cv
			continue
		}
		ck, err := st.clone(file, k)
		if err != nil {
			return err
		}
		dst.Content = append(dst.Content, ck, cv)
	}
	return nil
}

// clone copies an overlay value, expanding its aliases, and records every
// copied node as coming from file.
func (st *state) clone(file string, n *yaml.Node) (*yaml.Node, error) {
	// Measured before anything is copied: an alias bomb is refused without
	// allocating what it expands to.
	st.added += expandedSize(n, map[*yaml.Node]int{})
	if st.added > MaxNodes {
		return nil, ErrTooLarge
	}
	return st.copy(file, n), nil
}

// expandedSize counts the nodes n stands for once its aliases are expanded,
// measuring each anchored node once; it saturates above MaxNodes.
func expandedSize(n *yaml.Node, memo map[*yaml.Node]int) int {
	n = unalias(n)
	if n == nil {
		return 1
	}
	if s, ok := memo[n]; ok {
		return s
	}
	memo[n] = MaxNodes + 1 // a node inside itself (an alias cycle) is unbounded
	s := 1
	for _, ch := range n.Content {
		s = min(s+expandedSize(ch, memo), MaxNodes+1)
	}
	memo[n] = s
	return s
}

// copy is clone once the size is known to fit.
func (st *state) copy(file string, n *yaml.Node) *yaml.Node {
	n = unalias(n)
	c := *n
	c.Anchor, c.Alias = "", nil
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, ch := range n.Content {
		c.Content[i] = st.copy(file, ch)
	}
	st.origins[&c] = file
	return &c
}

// sync brings the view in step with the tree after a change at p.
// sync brings the view in step with the tree after an action changed it at
// the paths changed (in the order they were changed: later siblings first).
// Removals are mirrored; updated subtrees are converted again, each only
// once: a target inside another one is covered by the outer conversion.
func (st *state) sync(changed []spec.NormalizedPath, removed bool) error {
	switch {
	case st.view == nil || len(changed) == 0:
		return nil // not built yet: it will be built from the changed tree
	case st.aliased:
		return st.refresh() // a change under an anchor shows at every alias
	case removed:
		for _, p := range changed {
			st.view = setIn(st.view, p, nil, true)
		}
		return nil
	}
	for _, p := range outermost(changed) {
		_, _, n := nodeAt(st.root, p)
		v, err := st.convert(n, len(p))
		if err != nil {
			return err
		}
		st.view = setIn(st.view, p, v, false)
	}
	return nil
}

// outermost returns the paths that have no other path of the list as a
// prefix. Sorted element by element, the paths under a prefix follow it.
func outermost(paths []spec.NormalizedPath) []spec.NormalizedPath {
	sorted := slices.Clone(paths)
	slices.SortFunc(sorted, func(x, y spec.NormalizedPath) int { return slices.CompareFunc(x, y, compareSelector) })
	var out []spec.NormalizedPath
	for _, p := range sorted {
		if n := len(out); n > 0 {
			last := out[n-1]
			if len(last) <= len(p) && slices.Equal(last, p[:len(last)]) {
				continue
			}
		}
		out = append(out, p)
	}
	return out
}

// compareSelector orders indexes before names, each by value.
func compareSelector(a, b spec.NormalSelector) int {
	ai, aIdx := a.(spec.Index)
	bi, bIdx := b.(spec.Index)
	switch {
	case aIdx && bIdx:
		return cmp.Compare(ai, bi)
	case aIdx != bIdx:
		if aIdx {
			return -1
		}
		return 1
	}
	an, _ := a.(spec.Name)
	bn, _ := b.(spec.Name)
	return cmp.Compare(an, bn)
}

// removeChild removes the member at key index idx of a mapping, or the item
// at idx of a sequence.
func removeChild(parent *yaml.Node, idx int) {
	if parent.Kind == yaml.MappingNode {
		parent.Content = slices.Delete(parent.Content, idx, idx+2)
		return
	}
	parent.Content = slices.Delete(parent.Content, idx, idx+1)
}

// writtenSize counts the nodes of n as written (aliases not followed), as
// deepCopy copies them; it stops counting above MaxNodes.
func writtenSize(n *yaml.Node) int {
	s := 1
	for _, ch := range n.Content {
		if s > MaxNodes {
			break
		}
		if ch.Kind == yaml.AliasNode {
			s++
			continue
		}
		s += writtenSize(ch)
	}
	return s
}

// deepCopy copies a document node and its descendants, aliases left as
// they are; positions are kept and no origin is recorded.
func deepCopy(n *yaml.Node) *yaml.Node {
	c := *n
	c.Anchor = ""
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, ch := range n.Content {
		if ch.Kind == yaml.AliasNode {
			c.Content[i] = ch
			continue
		}
		c.Content[i] = deepCopy(ch)
	}
	return &c
}
