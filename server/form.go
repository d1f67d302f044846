package idemsrv

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/idemgen/idemgen/runtime/problem"
	"github.com/idemgen/idemgen/runtime/wire"
)

// Form decodes an application/x-www-form-urlencoded body into dst, the way
// wire.EncodeForm writes it: repeated keys for lists, a[b]=v for nested
// members, a[0][b]=v (and a[0]=x under deepObject) for indexed lists, and
// the query styles the encodings name for top-level properties. The pairs
// become a JSON document shaped by dst's type, which encoding/json then
// decodes, so the models' own JSON decoding (nullable fields, unions,
// times) applies.
func (d *Request) Form(dst any, required bool, enc ...wire.Encoding) {
	b, ok := d.readBody()
	if !ok || !d.present(b, required) {
		return
	}
	if mt, _, _ := mime.ParseMediaType(d.r.Header.Get("Content-Type")); mt != "application/x-www-form-urlencoded" {
		d.fail(http.StatusUnsupportedMediaType, problem.UnsupportedMedia, errors.New("the body must be application/x-www-form-urlencoded"))
		return
	}
	pairs, err := parseQuery(string(b))
	if err == nil {
		var doc []byte
		doc, err = formJSON(pairs, reflect.TypeOf(dst).Elem(), enc)
		if err == nil {
			err = d.e.unmarshal(doc, dst)
		}
	}
	if err != nil {
		d.fail(http.StatusBadRequest, problem.BadRequest, fmt.Errorf("form body: %w", err))
	}
}

// formJSON builds the JSON document of a form body for type t.
func formJSON(pairs []pair, t reflect.Type, enc []wire.Encoding) ([]byte, error) {
	root := value{present: true, isObj: true}
	for _, q := range pairs {
		name, rest, _ := strings.Cut(q.name, "[")
		if e := findEncoding(enc, name); e != nil && rest == "" && styledProperty(e) {
			continue // read whole below, with its style
		}
		keys := []string{name}
		if rest != "" {
			more, ok := bracketKeys("[" + rest)
			if !ok {
				return nil, fmt.Errorf("member name %q is not written a[b][c]", q.name)
			}
			keys = append(keys, more...)
		}
		s, err := url.QueryUnescape(q.raw)
		if err != nil {
			return nil, err
		}
		insert(&root, keys, s)
	}
	for _, e := range enc {
		if styledProperty(&e) {
			p := wire.Param{Name: e.Property, Style: cmp.Or(e.Style, wire.StyleForm), Explode: e.Explode}
			v, err := queryValue(p, pairs, kindList)
			if err != nil {
				return nil, err
			}
			if v.present {
				root.members = append(root.members, member{key: e.Property, val: v})
			}
		}
	}
	var buf bytes.Buffer
	err := writeJSON(&buf, root, t, 0)
	return buf.Bytes(), err
}

// findEncoding returns the encoding of a top-level property, or nil.
func findEncoding(enc []wire.Encoding, prop string) *wire.Encoding {
	for i := range enc {
		if enc[i].Property == prop {
			return &enc[i]
		}
	}
	return nil
}

// styledProperty mirrors the client: a property sent as one query-style
// pair (form unexploded, spaceDelimited, pipeDelimited).
func styledProperty(e *wire.Encoding) bool {
	switch e.Style {
	case 0, wire.StyleForm:
		return !e.Explode
	case wire.StyleSpaceDelimited, wire.StylePipeDelimited:
		return true
	}
	return false
}

var jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// maxFormDepth bounds the recursion of writeJSON (types can be recursive).
const maxFormDepth = 32

// writeJSON writes v as the JSON of type t: members by the struct's JSON
// names, lists for slices, numbers and booleans checked and written bare,
// everything else a string. A type with its own JSON decoding gets, per
// scalar, whichever of the quoted and the bare form it accepts.
func writeJSON(buf *bytes.Buffer, v value, t reflect.Type, depth int) error {
	if depth > maxFormDepth {
		return errors.New("the form nests deeper than its type")
	}
	for t.Kind() == reflect.Pointer {
		if !v.isObj && !v.isList && v.scalar == "" && t.Elem().Kind() != reflect.String {
			buf.WriteString("null") // an empty value is the client's null
			return nil
		}
		t = t.Elem()
	}
	switch {
	case isUnion(t) && !v.isObj && !v.isList:
		return writeUnionScalar(buf, v.scalar, t)
	case reflect.PointerTo(t).Implements(jsonUnmarshalerType) && !v.isObj && !v.isList:
		return writeCustom(buf, v.scalar, t)
	case isUnion(t) && (v.isObj || v.isList):
		return writeUnion(buf, v, t, depth)
	case t.Kind() == reflect.Struct && v.isObj:
		return writeStruct(buf, v, t, depth)
	case t.Kind() == reflect.Map && v.isObj:
		return writeMembers(buf, v, func(string) (reflect.Type, bool) { return t.Elem(), true }, depth)
	case (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && t.Elem().Kind() != reflect.Uint8:
		return writeList(buf, v, t.Elem(), depth)
	case t.Kind() == reflect.Interface && v.isObj:
		return writeMembers(buf, v, func(string) (reflect.Type, bool) { return t, true }, depth)
	case v.isObj || v.isList:
		return fmt.Errorf("a %s cannot hold a list or an object", t)
	}
	return writeScalar(buf, v.scalar, t)
}

// writeScalar writes one form value as the JSON of a basic kind.
func writeScalar(buf *bytes.Buffer, s string, t reflect.Type) error {
	switch t.Kind() {
	case reflect.Bool:
		if _, err := strconv.ParseBool(s); err != nil {
			return fmt.Errorf("%q is not a boolean", s)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			return fmt.Errorf("%q is not a number", s)
		}
	default:
		b, _ := json.Marshal(s)
		buf.Write(b)
		return nil
	}
	buf.WriteString(s)
	return nil
}

// writeCustom writes a scalar for a type with its own UnmarshalJSON: the
// quoted form when the type takes it, else the bare one.
func writeCustom(buf *bytes.Buffer, s string, t reflect.Type) error {
	quoted, _ := json.Marshal(s)
	cands := [][]byte{quoted, []byte(s)}
	if s == "" {
		// An empty value is how the client spells null (idemrt.Null).
		cands = [][]byte{[]byte("null"), quoted}
	}
	for _, cand := range cands {
		v := reflect.New(t)
		if json.Valid(cand) && json.Unmarshal(cand, v.Interface()) == nil {
			buf.Write(cand)
			return nil
		}
	}
	return fmt.Errorf("%q is not a valid %s", s, t)
}

// writeStruct writes the members the struct has, by JSON name.
func writeStruct(buf *bytes.Buffer, v value, t reflect.Type, depth int) error {
	fields := jsonFields(t)
	return writeMembers(buf, v, func(k string) (reflect.Type, bool) {
		i, ok := fields[k]
		if !ok {
			return nil, false
		}
		return t.Field(i).Type, true
	}, depth)
}

// writeMembers writes an object of v's members that typeOf knows.
func writeMembers(buf *bytes.Buffer, v value, typeOf func(string) (reflect.Type, bool), depth int) error {
	buf.WriteByte('{')
	n := 0
	for _, m := range v.members {
		ft, ok := typeOf(m.key)
		if !ok {
			continue
		}
		if n > 0 {
			buf.WriteByte(',')
		}
		n++
		k, _ := json.Marshal(m.key)
		buf.Write(k)
		buf.WriteByte(':')
		if err := writeJSON(buf, m.val, ft, depth+1); err != nil {
			return fmt.Errorf("member %q: %w", m.key, err)
		}
	}
	buf.WriteByte('}')
	return nil
}

// writeList writes a list: repeated values, indexed members in index
// order, or one value.
func writeList(buf *bytes.Buffer, v value, elem reflect.Type, depth int) error {
	var items []value
	switch {
	case v.isList:
		for _, s := range v.list {
			items = append(items, scalarValue(s))
		}
	case v.isObj:
		ms := append([]member(nil), v.members...)
		sort.SliceStable(ms, func(i, j int) bool { return index(ms[i].key) < index(ms[j].key) })
		for _, m := range ms {
			items = append(items, m.val)
		}
	default:
		items = []value{v}
	}
	buf.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := writeJSON(buf, it, elem, depth+1); err != nil {
			return err
		}
	}
	buf.WriteByte(']')
	return nil
}

// index is a member name's list index; names that are not indexes sort last.
func index(k string) int {
	n, err := strconv.Atoi(k)
	if err != nil || n < 0 {
		return int(^uint(0) >> 1)
	}
	return n
}
