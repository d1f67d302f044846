package generator

import "github.com/idemgen/idemgen/ir"

// fieldEdge identifies one property of one object declaration.
type fieldEdge struct {
	owner *ir.Schema
	prop  *ir.Property
}

// valueEdge is a required, non-nullable property whose type is a struct
// declaration, embedded by value.
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
			if !p.Required || isNullable(p.Type) || p.Type == nil || p.Type.Kind != ir.KindRef {
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
	index := map[*ir.Schema]int{}
	low := map[*ir.Schema]int{}
	onStack := map[*ir.Schema]bool{}
	comp := map[*ir.Schema]int{}
	var stack []*ir.Schema
	next, ncomp := 0, 0
	type frame struct {
		v *ir.Schema
		i int
	}
	for _, root := range nodes {
		if _, seen := index[root]; seen {
			continue
		}
		work := []frame{{v: root}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(work) > 0 {
			f := &work[len(work)-1]
			if f.i < len(edges[f.v]) {
				w := edges[f.v][f.i].to
				f.i++
				if _, seen := index[w]; !seen {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					work = append(work, frame{v: w})
				} else if onStack[w] {
					low[f.v] = min(low[f.v], index[w])
				}
				continue
			}
			v := f.v
			work = work[:len(work)-1]
			if len(work) > 0 {
				parent := work[len(work)-1].v
				low[parent] = min(low[parent], low[v])
			}
			if low[v] == index[v] {
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = ncomp
					if w == v {
						break
					}
				}
				ncomp++
			}
		}
	}
	return comp
}
