package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/idemgen/idemgen/ir"
)

// listPageSize is the page size asked of a list that declares a limit
// parameter, so that a new item is on the page counted.
const listPageSize = 100

// listCount is what a list operation showed before a keyed call: how many
// items, or that it cannot be read.
type listCount struct {
	list  *ir.Operation
	items int
	ok    bool
	limit int // the page size asked, 0 for none
}

// listOperation is the GET on the keyed operation's own path when that
// path is a collection (a create adds to it); nil when the spec has none,
// or when the path ends in a parameter, where the GET reads one item.
func (c *opCheck) listOperation() *ir.Operation {
	if strings.HasSuffix(c.op.Path, "}") {
		return nil
	}
	for _, o := range c.v.api.Operations {
		if o != c.op && o.Method == "GET" && o.Path == c.op.Path && o.Retry.Safety != ir.Unsafe {
			return o
		}
	}
	return nil
}

// countList counts the items the list operation answers now.
func (c *opCheck) countList(ctx context.Context) listCount {
	list := c.listOperation()
	if list == nil {
		return listCount{}
	}
	in := c.v.input(list)
	lc := listCount{list: list}
	if p := list.Pagination; p != nil && p.Limit != "" {
		if _, given := in.Params[p.Limit]; !given {
			params := map[string]string{p.Limit: strconv.Itoa(listPageSize)}
			for k, v := range in.Params {
				params[k] = v
			}
			in.Params, lc.limit = params, listPageSize
		}
	}
	ex := c.v.send(ctx, list, in, sendOpts{noBody: true})
	if !ex.success() {
		return lc
	}
	lc.items, lc.ok = countItems(ex.body, list.Pagination)
	lc.ok = lc.ok && (lc.limit == 0 || lc.items < lc.limit)
	return lc
}

// executions compares the list now with before: a note and true when it
// cannot tell or shows one new item, a failure message ending in "after "
// + what when it shows more.
func (c *opCheck) executions(ctx context.Context, before listCount, what string) (string, bool) {
	if !before.ok {
		return "", true
	}
	after := c.countList(ctx)
	if !after.ok {
		return "", true
	}
	switch d := after.items - before.items; {
	case d == 1:
		return fmt.Sprintf("; %s shows one new item", before.list.ID), true
	case d > 1:
		return fmt.Sprintf("%s shows %d new items after %s", before.list.ID, d, what), false
	}
	return fmt.Sprintf("; %s shows no new item (not judged: the list may not show it)", before.list.ID), true
}

// countItems counts a list answer's items: where the paging contract says,
// else the body when it is an array, else its data, items or results
// array, else its only array member.
func countItems(body []byte, p *ir.Pagination) (int, bool) {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return 0, false
	}
	if p != nil && len(p.Items) > 0 {
		for _, name := range p.Items {
			m, _ := v.(map[string]any)
			v = m[name]
		}
	}
	if a, ok := v.([]any); ok {
		return len(a), true
	}
	m, _ := v.(map[string]any)
	for _, name := range []string{"data", "items", "results"} {
		if a, ok := m[name].([]any); ok {
			return len(a), true
		}
	}
	var only []any
	arrays := 0
	for _, x := range m {
		if a, ok := x.([]any); ok {
			only, arrays = a, arrays+1
		}
	}
	if arrays != 1 {
		return 0, false
	}
	return len(only), true
}
