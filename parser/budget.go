package parser

import (
	"errors"
	"fmt"

	"go.yaml.in/yaml/v4"
)

// aliasBudget is how many nodes YAML aliases may add to a file when expanded.
// A document without aliases is never refused (its size is what was read);
// real documents that share anchors stay far below. A few hundred bytes of
// nested aliases ("billion laughs") expand to hundreds of millions of nodes,
// which is what the budget stops before anything expands them.
const aliasBudget = 1 << 21

// errNodeBudget is the error of a file whose aliases exceed aliasBudget.
var errNodeBudget = fmt.Errorf("YAML aliases expand the document by more than %d nodes (an alias bomb?); refused", aliasBudget)

// checkAliasBudget refuses a tree whose expansion through aliases would add
// more than aliasBudget nodes. The size of each anchored node is computed
// once (memoised), so the check costs one walk of the tree as written. An
// alias cycle counts as one node here: the walks that expand trees
// (toJSONValue) carry their own budget and depth bound.
func checkAliasBudget(root *yaml.Node) error {
	c := aliasCounter{memo: map[*yaml.Node]int{}}
	written := c.size(root, false)
	if c.aliases == 0 {
		return nil
	}
	expanded := c.size(root, true)
	if expanded-written > aliasBudget {
		return errNodeBudget
	}
	return nil
}

// aliasCounter measures trees, with or without following aliases.
type aliasCounter struct {
	// memo holds the size of each anchored node: only an anchor is reached
	// more than once, through its aliases, so nothing else is remembered.
	memo map[*yaml.Node]int
	// aliases counts the alias nodes met by walks that do not expand them.
	aliases int
}

// size returns the number of nodes under n (n included), saturating just
// above the budget so no count overflows. With expand, an alias counts as
// the size of its anchor.
func (c *aliasCounter) size(n *yaml.Node, expand bool) int {
	const ceiling = 1 << 40
	if n == nil {
		return 0
	}
	if n.Kind == yaml.AliasNode {
		if !expand || n.Alias == nil {
			c.aliases++
			return 1
		}
		n = n.Alias
	}
	if !expand {
		total := 1
		for _, ch := range n.Content {
			total += c.size(ch, false)
		}
		return total
	}
	if n.Anchor == "" {
		return c.expandedSize(n, ceiling)
	}
	if s, ok := c.memo[n]; ok {
		return s
	}
	c.memo[n] = 1 // a cycle back to n counts as one node
	total := c.expandedSize(n, ceiling)
	c.memo[n] = total
	return total
}

// expandedSize is n's own node plus its children's expanded sizes.
func (c *aliasCounter) expandedSize(n *yaml.Node, ceiling int) int {
	total := 1
	for _, ch := range n.Content {
		total = min(total+c.size(ch, true), ceiling)
	}
	return total
}

// expansion is the budget of one walk that expands aliases into values.
type expansion struct {
	left int
}

// errExpansionBudget stops an expanding walk that ran out of budget.
var errExpansionBudget = errors.New("YAML aliases expand the document beyond the node budget; refused")

// take charges one node; false once the budget is spent.
func (e *expansion) take() bool {
	e.left--
	return e.left >= 0
}
