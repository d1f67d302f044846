package idemsrv

import (
	"net/url"
	"strings"

	"github.com/idemgen/idemgen/runtime/wire"
)

// splitValue splits wire text into the kind of value the destination asks for:
// a scalar is the whole text, a list splits on sep, an object reads
// key=value items (explode) or alternating keys and values. Every piece is
// unescaped after the split, so an escaped separator stays in its piece.
func splitValue(raw string, kind valueKind, explode bool, sep string, unesc func(string) (string, error)) (value, error) {
	switch kind {
	case kindList:
		parts := strings.Split(raw, sep)
		for i, p := range parts {
			s, err := unesc(p)
			if err != nil {
				return value{}, err
			}
			parts[i] = s
		}
		return listValue(parts), nil
	case kindObject:
		return splitObject(strings.Split(raw, sep), explode, unesc)
	}
	s, err := unesc(raw)
	return scalarValue(s), err
}

// splitObject reads k=v items, or k,v,k,v when not exploded.
func splitObject(items []string, explode bool, unesc func(string) (string, error)) (value, error) {
	v := value{present: true, isObj: true}
	for i := 0; i < len(items); i++ {
		k, val, ok := strings.Cut(items[i], "=")
		if !explode {
			if i+1 >= len(items) {
				return value{}, errOddObject
			}
			k, val, ok = items[i], items[i+1], true
			i++
		}
		if !ok {
			return value{}, errOddObject
		}
		ku, err := unesc(k)
		if err != nil {
			return value{}, err
		}
		vu, err := unesc(val)
		if err != nil {
			return value{}, err
		}
		v.members = append(v.members, member{key: ku, val: scalarValue(vu)})
	}
	return v, nil
}

// pathValue decodes a path segment in the simple, label or matrix style.
func pathValue(p wire.Param, raw string, kind valueKind) (value, error) {
	unesc := url.PathUnescape
	switch p.Style {
	case wire.StyleLabel:
		rest, ok := strings.CutPrefix(raw, ".")
		if !ok {
			return value{}, errStyle
		}
		sep := ","
		if p.Explode && kind != kindScalar {
			sep = "."
		}
		return splitValue(rest, kind, p.Explode, sep, unesc)
	case wire.StyleMatrix:
		return matrixValue(p, raw, kind)
	}
	return splitValue(raw, kind, p.Explode, ",", unesc)
}

// matrixValue reads ;name=v, ;name=a;name=b (an exploded list) and
// ;k=v;k2=v2 (an exploded object).
func matrixValue(p wire.Param, raw string, kind valueKind) (value, error) {
	rest, ok := strings.CutPrefix(raw, ";")
	if !ok {
		return value{}, errStyle
	}
	items := strings.Split(rest, ";")
	name := url.PathEscape(p.Name)
	if kind == kindObject && p.Explode {
		return splitObject(items, true, url.PathUnescape)
	}
	if kind == kindList && p.Explode {
		var out []string
		for _, it := range items {
			k, v, _ := strings.Cut(it, "=")
			if k != name {
				return value{}, errStyle
			}
			s, err := url.PathUnescape(v)
			if err != nil {
				return value{}, err
			}
			out = append(out, s)
		}
		return listValue(out), nil
	}
	k, v, _ := strings.Cut(rest, "=")
	if k != name {
		return value{}, errStyle
	}
	return splitValue(v, kind, false, ",", url.PathUnescape)
}

// headerValue decodes a header in the simple style; headers are sent
// unescaped, so list items and members are trimmed of the spaces a proxy
// may add after commas.
func headerValue(p wire.Param, raw string, kind valueKind) (value, error) {
	trim := func(s string) (string, error) { return strings.TrimSpace(s), nil }
	if kind == kindScalar {
		return scalarValue(raw), nil
	}
	return splitValue(raw, kind, p.Explode, ",", trim)
}
