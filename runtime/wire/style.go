package wire

import (
	"net/url"
	"strconv"
	"strings"
)

// expandPath returns the escaped text that replaces {name} in a path
// template. Values are escaped as path segments, so '/', '?', ';' and ','
// inside a value never act as delimiters. A simple-style value that is "",
// "." or ".." is rejected: it would change which resource the path names.
func expandPath(p Param, v any) (string, error) {
	n, err := toNode(v, p.JSON)
	if err != nil {
		return "", paramError(p.Name, "%v", err)
	}
	out, ok := stylePath(p, n)
	if !ok {
		return "", styleError(p, "path")
	}
	switch out {
	case "", ".", "..":
		return "", paramError(p.Name, "path value %q would not name a path segment", out)
	}
	return out, nil
}

// stylePath applies the simple, label or matrix style to n; ok is false
// for a style the path does not allow.
func stylePath(p Param, n node) (out string, ok bool) {
	esc := url.PathEscape
	switch p.Style {
	case StyleSimple:
		return joinStyled(n, p.Explode, esc, ",", ",", ",", "="), true
	case StyleLabel:
		return "." + joinStyled(n, p.Explode, esc, ".", ",", ".", "="), true
	case StyleMatrix:
		return matrix(p, n, esc), true
	}
	return "", false
}

// matrix renders ;name=value forms.
func matrix(p Param, n node, esc func(string) string) string {
	name := ";" + esc(p.Name)
	switch {
	case n.kind == nodeAbsent:
		return name
	case n.kind == nodeList && p.Explode:
		var b strings.Builder
		for _, s := range n.list {
			b.WriteString(name + "=" + esc(s))
		}
		return b.String()
	case n.kind == nodeObject && p.Explode:
		return ";" + joinStyled(n, true, esc, ";", ";", ";", "=")
	}
	return name + "=" + joinStyled(n, false, esc, ",", ",", ",", "=")
}

// joinStyled renders a node for the simple, label and header forms. Lists
// join with listSep when exploded and with flatSep otherwise; object members
// join with memberSep as k=v pairs when exploded and as k,v otherwise.
func joinStyled(n node, explode bool, esc func(string) string, listSep, flatSep, memberSep, kv string) string {
	switch n.kind {
	case nodeScalar:
		return esc(n.scalar)
	case nodeList:
		sep := flatSep
		if explode {
			sep = listSep
		}
		return joinEscaped(n.list, sep, esc)
	case nodeObject:
		if !explode {
			return joinEscaped(n.flatten(), flatSep, esc)
		}
		keys, vals := n.pairs(",")
		parts := make([]string, len(keys))
		for i := range keys {
			parts[i] = esc(keys[i]) + kv + esc(vals[i])
		}
		return strings.Join(parts, memberSep)
	}
	return ""
}

// joinEscaped escapes each string and joins them with sep.
func joinEscaped(ss []string, sep string, esc func(string) string) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = esc(s)
	}
	return strings.Join(parts, sep)
}

// queryPairs returns the escaped name=value pairs of one query parameter for
// the form, spaceDelimited, pipeDelimited and deepObject styles. An absent
// value yields no pairs; a style the query does not allow is an error.
func queryPairs(p Param, n node) ([]string, error) {
	switch p.Style {
	case StyleForm, StyleSpaceDelimited, StylePipeDelimited, StyleDeepObject:
		return stylePairs(p, n), nil
	}
	return nil, styleError(p, "query")
}

// stylePairs is queryPairs for a style the query allows.
func stylePairs(p Param, n node) []string {
	esc := queryEscaper(p.AllowReserved)
	name := url.QueryEscape(p.Name)
	switch n.kind {
	case nodeAbsent:
		return nil
	case nodeScalar:
		return []string{name + "=" + esc(n.scalar)}
	case nodeList:
		if p.Style == StyleDeepObject {
			// A deepObject list is indexed, of scalars (Stripe's
			// expand[0]=a) or of objects (lines[0][amount]=v): Stripe and
			// kin-openapi refuse a repeated key there.
			return deepMember(name, n, esc)
		}
		return queryList(p, name, n, esc)
	}
	if p.Style == StyleDeepObject {
		return deepObject(name, n, esc)
	}
	if p.Explode {
		keys, vals := n.pairs(",")
		out := make([]string, len(keys))
		for i := range keys {
			out[i] = url.QueryEscape(keys[i]) + "=" + esc(vals[i])
		}
		return out
	}
	return []string{name + "=" + joinEscaped(n.flatten(), ",", esc)}
}

// queryList renders an array query parameter.
func queryList(p Param, name string, n node, esc func(string) string) []string {
	switch {
	case p.Style == StyleSpaceDelimited:
		return []string{name + "=" + joinEscaped(n.list, "%20", esc)}
	case p.Style == StylePipeDelimited:
		return []string{name + "=" + joinEscaped(n.list, "|", esc)}
	case p.Explode:
		out := make([]string, len(n.list))
		for i, s := range n.list {
			out[i] = name + "=" + esc(s)
		}
		return out
	}
	return []string{name + "=" + joinEscaped(n.list, ",", esc)}
}

// deepObject renders name[member]=value pairs, recursing into nested objects
// (name[a][b]=v) and indexing every list, of scalars (name[a][0]=v) or of
// objects and lists (name[a][0][b]=v), as Stripe and Rails read it; the same
// convention as EncodeForm under a deepObject encoding.
func deepObject(prefix string, n node, esc func(string) string) []string {
	var out []string
	for i, k := range n.keys {
		out = append(out, deepMember(prefix+"["+url.QueryEscape(k)+"]", n.vals[i], esc)...)
	}
	return out
}

// deepMember renders one deepObject member under key.
func deepMember(key string, v node, esc func(string) string) []string {
	switch v.kind {
	case nodeObject:
		return deepObject(key, v, esc)
	case nodeList:
		if !structured(v.items) {
			out := make([]string, 0, len(v.list))
			for j, s := range v.list {
				out = append(out, key+"["+strconv.Itoa(j)+"]="+esc(s))
			}
			return out
		}
		var out []string
		for j, el := range v.items {
			out = append(out, deepMember(key+"["+strconv.Itoa(j)+"]", el, esc)...)
		}
		return out
	case nodeScalar:
		return []string{key + "=" + esc(v.scalar)}
	}
	return nil
}

// structured reports whether a list holds objects or lists.
func structured(items []node) bool {
	for _, el := range items {
		if el.kind == nodeObject || el.kind == nodeList {
			return true
		}
	}
	return false
}

// queryEscaper returns the escaping function of a query value.
func queryEscaper(allowReserved bool) func(string) string {
	if allowReserved {
		return escapeKeepReserved
	}
	return url.QueryEscape
}

// escapeKeepReserved escapes what is neither unreserved nor reserved in RFC
// 3986, plus '&', '=', '#' and '+', which would change how the query string
// itself splits or decodes.
func escapeKeepReserved(s string) string {
	const keep = "-._~:/?[]@!$'()*,;"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isAlnum(c) || strings.IndexByte(keep, c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteString(url.QueryEscape(string(c)))
	}
	return b.String()
}

// isAlnum reports whether c is an ASCII letter or digit.
func isAlnum(c byte) bool {
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

// headerValue renders a header parameter (always the simple style); ok is
// false when the value is absent.
func headerValue(n node, explode bool) (string, bool) {
	if n.kind == nodeAbsent {
		return "", false
	}
	return joinStyled(n, explode, identity, ",", ",", ",", "="), true
}

// cookiePairs renders a cookie parameter (the form style) as name=value
// pairs; values are query-escaped because cookie values may not hold
// spaces, commas or semicolons.
func cookiePairs(p Param, n node) []string {
	esc := url.QueryEscape
	switch {
	case n.kind == nodeAbsent:
		return nil
	case n.kind == nodeObject && p.Explode:
		keys, vals := n.pairs(",")
		out := make([]string, len(keys))
		for i := range keys {
			out[i] = esc(keys[i]) + "=" + esc(vals[i])
		}
		return out
	case n.kind == nodeList && p.Explode:
		out := make([]string, len(n.list))
		for i, s := range n.list {
			out[i] = esc(p.Name) + "=" + esc(s)
		}
		return out
	}
	return []string{esc(p.Name) + "=" + joinEscaped(n.flatten(), ",", esc)}
}

// identity returns s unchanged.
func identity(s string) string { return s }
