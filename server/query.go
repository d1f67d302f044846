package idemsrv

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/idemgen/idemgen/runtime/wire"
)

// pair is one name=value of a query string: the name unescaped, the value
// as sent, so that a style's separators are found before unescaping.
type pair struct {
	name string
	raw  string
}

// maxQueryPairs bounds the pairs read from one query string.
const maxQueryPairs = 1000

// parseQuery splits a raw query string into pairs.
func parseQuery(raw string) ([]pair, error) {
	var out []pair
	for raw != "" {
		var item string
		item, raw, _ = strings.Cut(raw, "&")
		if item == "" {
			continue
		}
		if len(out) == maxQueryPairs {
			return nil, errTooManyPairs
		}
		k, v, _ := strings.Cut(item, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			return nil, err
		}
		out = append(out, pair{name: name, raw: v})
	}
	return out, nil
}

// queryValue decodes one query parameter in the form, spaceDelimited,
// pipeDelimited or deepObject style.
func queryValue(p wire.Param, pairs []pair, kind valueKind) (value, error) {
	if p.Style == wire.StyleDeepObject {
		v, err := deepValue(p.Name, pairs, kind)
		if err != nil || v.present || kind == kindObject {
			return v, err
		}
		// A scalar under deepObject (a union holding "now") has no member
		// to bracket: the client sends it as name=value, as form does.
		p.Style, p.Explode = wire.StyleForm, true
	}
	var mine []string
	for _, q := range pairs {
		if q.name == p.Name {
			mine = append(mine, q.raw)
		}
	}
	if kind == kindObject && p.Explode && p.Style == wire.StyleForm {
		return formObject(pairs)
	}
	if len(mine) == 0 {
		return value{}, nil
	}
	if kind == kindList && (p.Explode || len(mine) > 1) && p.Style == wire.StyleForm {
		return splitValue(strings.Join(mine, "&"), kind, true, "&", url.QueryUnescape)
	}
	switch p.Style {
	case wire.StyleSpaceDelimited:
		// The client joins escaped items with %20; a space inside an item
		// is "+" (or %20 from other clients, which then splits: the style
		// itself cannot tell them apart).
		return splitValue(mine[0], kind, false, "%20", url.QueryUnescape)
	case wire.StylePipeDelimited:
		raw := strings.ReplaceAll(strings.ReplaceAll(mine[0], "%7C", "|"), "%7c", "|")
		return splitValue(raw, kind, false, "|", url.QueryUnescape)
	}
	return splitValue(mine[0], kind, p.Explode, ",", url.QueryUnescape)
}

// formObject reads an exploded form object: its members are query
// parameters of their own; assignStruct keeps those that are fields.
func formObject(pairs []pair) (value, error) {
	v := value{isObj: true}
	for _, q := range pairs {
		s, err := url.QueryUnescape(q.raw)
		if err != nil {
			return value{}, err
		}
		v.present = true
		v.members = append(v.members, member{key: q.name, val: scalarValue(s)})
	}
	return v, nil
}

// deepValue reads name[a]=v, name[a][b]=v and name[a]=v1&name[a]=v2 into
// nested members; an index (name[a][0][b]) becomes a member named "0".
func deepValue(name string, pairs []pair, kind valueKind) (value, error) {
	root := value{isObj: true}
	for _, q := range pairs {
		rest, ok := strings.CutPrefix(q.name, name)
		if !ok || !strings.HasPrefix(rest, "[") {
			continue
		}
		keys, ok := bracketKeys(rest)
		if !ok {
			return value{}, errStyle
		}
		s, err := url.QueryUnescape(q.raw)
		if err != nil {
			return value{}, err
		}
		root.present = true
		insert(&root, keys, s)
	}
	if kind == kindList && root.present {
		return listFromIndexed(root), nil
	}
	return root, nil
}

// bracketKeys splits "[a][b]" into a, b.
func bracketKeys(s string) ([]string, bool) {
	var keys []string
	for s != "" {
		if s[0] != '[' {
			return nil, false
		}
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return nil, false
		}
		keys = append(keys, s[1:end])
		s = s[end+1:]
	}
	return keys, len(keys) > 0
}

// maxDeepDepth bounds the nesting of a deepObject key.
const maxDeepDepth = 16

// insert sets the member at path keys; a repeated leaf becomes a list.
func insert(v *value, keys []string, s string) {
	if len(keys) > maxDeepDepth {
		return
	}
	for i := range v.members {
		m := &v.members[i]
		if m.key != keys[0] {
			continue
		}
		if len(keys) > 1 {
			insert(&m.val, keys[1:], s)
			return
		}
		if !m.val.isList {
			m.val = listValue([]string{m.val.scalar})
		}
		m.val.list = append(m.val.list, s)
		return
	}
	m := member{key: keys[0], val: scalarValue(s)}
	if len(keys) > 1 {
		m.val = value{present: true, isObj: true}
		insert(&m.val, keys[1:], s)
	}
	v.members = append(v.members, m)
}

// listFromIndexed turns members "0", "1"... into a list, in index order.
// Items that are objects (lines[0][status]=v) keep the indexed object,
// which assignList reads item by item.
func listFromIndexed(v value) value {
	items := indexedItems(v)
	list := make([]string, 0, len(items))
	for _, it := range items {
		if it.isObj {
			return v
		}
		list = append(list, it.scalar)
	}
	return listValue(list)
}

// indexedItems are the values of members "0", "1"..., in index order.
func indexedItems(v value) []value {
	items := make([]value, 0, len(v.members))
	for i := range v.members {
		for _, m := range v.members {
			if m.key == strconv.Itoa(i) {
				items = append(items, m.val)
			}
		}
	}
	return items
}
