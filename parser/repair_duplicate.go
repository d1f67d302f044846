package parser

import (
	"strconv"

	"go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/internal/jsonpointer"
)

// dedupe removes the earlier definitions of a member defined twice in one
// mapping: JSON parsers, kin-openapi's JSON path included, keep the last one,
// while its YAML path refuses the whole document.
func (p *repairer) dedupe(n *yaml.Node, path []string, depth int) {
	if n == nil || depth > maxDepth {
		return
	}
	if n.Kind == yaml.MappingNode && len(n.Content) > 2 {
		p.dedupeMapping(n, path)
	}
	// The path is a stack of tokens, made into a pointer only for a finding:
	// joining one per node cost an allocation per node of every document.
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 1 {
			p.dedupe(c, append(path, n.Content[i-1].Value), depth+1)
		} else if n.Kind == yaml.SequenceNode {
			p.dedupe(c, append(path, strconv.Itoa(i)), depth+1)
		}
	}
}

func (p *repairer) dedupeMapping(n *yaml.Node, path []string) {
	if !hasDuplicateKey(n) {
		return
	}
	pointer := jsonpointer.Join("", path...)
	last := make(map[string]int, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		last[n.Content[i].Value] = i
	}
	kept := n.Content[:0:0]
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if last[k.Value] != i {
			later := n.Content[last[k.Value]]
			p.l.sink.warnf(loc{p.f.key, jsonpointer.Join(pointer, k.Value), later}, "", ruleDuplicateKey,
				"member %q is defined twice; the last definition is used", k.Value)
			continue
		}
		kept = append(kept, k, n.Content[i+1])
	}
	n.Content = kept
	p.f.repaired = true
}

// hasDuplicateKey is the cheap check that runs on every mapping: pairwise for
// small ones (no allocation), with a set for large ones.
func hasDuplicateKey(n *yaml.Node) bool {
	c := n.Content
	if len(c) <= 32 {
		for i := 0; i+1 < len(c); i += 2 {
			for j := i + 2; j+1 < len(c); j += 2 {
				if c[i].Value == c[j].Value {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]bool, len(c)/2)
	for i := 0; i+1 < len(c); i += 2 {
		if seen[c[i].Value] {
			return true
		}
		seen[c[i].Value] = true
	}
	return false
}
