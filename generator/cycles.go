package generator

import "github.com/idemgen/idemgen/ir"

// fieldEdge identifies one property of one object declaration.
type fieldEdge struct {
	owner *ir.Schema
	prop  *ir.Property
}

// valueEdge is a property whose type is a struct declaration embedded by
// value: required and not nullable, or optional and nullable (an
// idemrt.Nullable holds its value).
type valueEdge struct {
	fieldEdge
	to *ir.Schema
}

// valueCycles finds the required struct fields that would make a Go type
// contain itself (type Node struct{ Next Node } does not compile). It builds
// the graph of by-value embeddings between object declarations, finds its
// strongly connected components (Tarjan, linear time) and marks every edge
// inside a component: those fields become pointers, which breaks every
// cycle while leaving acyclic fields as plain values.
func valueCycles(schemas []*ir.Schema) map[fieldEdge]bool {
	edges := map[*ir.Schema][]valueEdge{}
	for _, s := range schemas {
		if s.Kind != ir.KindObject {
			continue
		}
		for _, p := range s.Properties {
			byValue := p.Required && !p.Type.IsNullable() || threeState(p) // Nullable[T] holds T
			if !byValue || p.Type == nil || p.Type.Kind != ir.KindRef {
				continue
			}
			if to := p.Type.Deref(); to != nil && to.Kind == ir.KindObject && len(to.Properties) > 0 {
				edges[s] = append(edges[s], valueEdge{fieldEdge{s, p}, to})
			}
		}
	}
	comp := tarjan(schemas, edges)
	out := map[fieldEdge]bool{}
	for _, s := range schemas {
		for _, e := range edges[s] {
			if comp[s] == comp[e.to] {
				out[e.fieldEdge] = true
			}
		}
	}
	return out
}

// tarjan returns the strongly connected component number of every node.
// Nodes are visited in slice order so numbering is deterministic; the
// recursion is made iterative so deep chains in large documents cannot
// overflow the stack.
func tarjan(nodes []*ir.Schema, edges map[*ir.Schema][]valueEdge) map[*ir.Schema]int {
	t := &sccState{index: map[*ir.Schema]int{}, low: map[*ir.Schema]int{}, onStack: map[*ir.Schema]bool{},
		comp: map[*ir.Schema]int{}}
	for _, root := range nodes {
		if _, seen := t.index[root]; !seen {
			t.visit(root, edges)
		}
	}
	return t.comp
}

// sccState is the bookkeeping of Tarjan's algorithm.
type sccState struct {
	index, low, comp map[*ir.Schema]int
	onStack          map[*ir.Schema]bool
	stack            []*ir.Schema
	next, ncomp      int
}

// sccFrame is one node being explored and the next edge to follow.
type sccFrame struct {
	v *ir.Schema
	i int
}

// visit explores everything reachable from root with an explicit stack.
func (t *sccState) visit(root *ir.Schema, edges map[*ir.Schema][]valueEdge) {
	work := []sccFrame{t.push(root)}
	for len(work) > 0 {
		f := &work[len(work)-1]
		if f.i < len(edges[f.v]) {
			w := edges[f.v][f.i].to
			f.i++
			if _, seen := t.index[w]; !seen {
				work = append(work, t.push(w))
			} else if t.onStack[w] {
				t.low[f.v] = min(t.low[f.v], t.index[w])
			}
			continue
		}
		v := f.v
		work = work[:len(work)-1]
		if len(work) > 0 {
			parent := work[len(work)-1].v
			t.low[parent] = min(t.low[parent], t.low[v])
		}
		if t.low[v] == t.index[v] {
			t.popComponent(v)
		}
	}
}

// push numbers a newly reached node and puts it on the stack.
func (t *sccState) push(v *ir.Schema) sccFrame {
	t.index[v], t.low[v] = t.next, t.next
	t.next++
	t.stack = append(t.stack, v)
	t.onStack[v] = true
	return sccFrame{v: v}
}

// popComponent pops the component rooted at v.
func (t *sccState) popComponent(v *ir.Schema) {
	for {
		w := t.stack[len(t.stack)-1]
		t.stack = t.stack[:len(t.stack)-1]
		t.onStack[w] = false
		t.comp[w] = t.ncomp
		if w == v {
			break
		}
	}
	t.ncomp++
}
