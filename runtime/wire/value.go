package wire

import (
	"github.com/idemgen/idemgen/runtime/internal/shared"

	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// nodeKind tells the three shapes a parameter value can take.
type nodeKind int

const (
	nodeAbsent nodeKind = iota
	nodeScalar
	nodeList
	nodeObject
)

// node is a parameter value reduced to what the OpenAPI styles can express:
// a scalar, a list of scalars, or an object with ordered members.
type node struct {
	kind   nodeKind
	scalar string
	list   []string
	keys   []string
	vals   []node
	// items are a decoded list's elements as they were, for the styles
	// that keep the structure of objects inside lists (deepObject).
	items []node
}

// ErrInvalidParam is wrapped by every error about a parameter value (the
// same value as idemrt.ErrInvalidParam, which users match).
var ErrInvalidParam = shared.ErrInvalidParam

// paramError names the parameter whose value could not be serialised.
func paramError(name, format string, args ...any) error {
	return fmt.Errorf("%w %q: %s", ErrInvalidParam, name, fmt.Sprintf(format, args...))
}

// toNode reduces v: nil pointers, nil interfaces and empty slices or maps are
// absent; strings, numbers, booleans, times and text marshalers are scalars;
// slices are lists; maps (sorted by key) and structs (in JSON field order)
// are objects.
func toNode(v any, asJSON bool) (node, error) {
	if asJSON {
		return jsonScalar(v)
	}
	if raw, ok := v.(json.RawMessage); ok && len(raw) == 0 {
		return node{}, nil
	}
	if s, ok := fastScalar(v); ok {
		return node{kind: nodeScalar, scalar: s}, nil
	}
	rv := reflect.ValueOf(v)
	for rv.IsValid() && (rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface) {
		if rv.IsNil() {
			return node{}, nil
		}
		rv = rv.Elem()
	}
	if !rv.IsValid() {
		return node{}, nil
	}
	return reflectNode(rv)
}

// jsonScalar sends a whole value as its JSON text.
func jsonScalar(v any) (node, error) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || (rv.Kind() == reflect.Pointer && rv.IsNil()) {
		return node{}, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return node{}, err
	}
	if string(b) == "null" {
		// A nil map or slice, or a union with no variant set, is unset: an
		// absent parameter, not q=null (Apache Superset's optional JSON
		// query parameters).
		return node{}, nil
	}
	return node{kind: nodeScalar, scalar: string(b)}, nil
}

// fastScalar handles the common scalar types without reflection.
func fastScalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case int:
		return strconv.Itoa(x), true
	case int32:
		return strconv.FormatInt(int64(x), 10), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case bool:
		return strconv.FormatBool(x), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case time.Time:
		return x.Format(time.RFC3339Nano), true
	case json.RawMessage:
		// Untyped values: a JSON string is sent as its text, anything else
		// as its JSON form.
		var str string
		if json.Unmarshal(x, &str) == nil {
			return str, true
		}
		return string(x), true
	}
	return "", false
}

var (
	textMarshalerType   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// reflectNode is toNode for a non-pointer value.
func reflectNode(rv reflect.Value) (node, error) {
	if rv.Type().Implements(textMarshalerType) {
		b, err := rv.Interface().(encoding.TextMarshaler).MarshalText()
		return node{kind: nodeScalar, scalar: string(b)}, err
	}
	switch rv.Kind() {
	case reflect.String:
		return node{kind: nodeScalar, scalar: rv.String()}, nil
	case reflect.Bool:
		return node{kind: nodeScalar, scalar: strconv.FormatBool(rv.Bool())}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return node{kind: nodeScalar, scalar: strconv.FormatInt(rv.Int(), 10)}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return node{kind: nodeScalar, scalar: strconv.FormatUint(rv.Uint(), 10)}, nil
	case reflect.Float32, reflect.Float64:
		return node{kind: nodeScalar, scalar: strconv.FormatFloat(rv.Float(), 'f', -1, 64)}, nil
	case reflect.Slice, reflect.Array:
		return listNode(rv)
	case reflect.Map, reflect.Struct:
		return objectNode(rv.Interface())
	}
	return node{}, fmt.Errorf("unsupported type %s", rv.Type())
}

// listNode turns a slice of scalars into a list; an element that is not a
// scalar is sent as its JSON text.
func listNode(rv reflect.Value) (node, error) {
	if rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8 {
		// []byte is format: byte, a base64 scalar.
		b, _ := json.Marshal(rv.Bytes())
		return node{kind: nodeScalar, scalar: string(bytes.Trim(b, `"`))}, nil
	}
	if rv.Len() == 0 {
		return node{}, nil
	}
	n := node{kind: nodeList, list: make([]string, 0, rv.Len())}
	for i := range rv.Len() {
		el, err := toNode(rv.Index(i).Interface(), false)
		if err != nil {
			return node{}, err
		}
		n.items = append(n.items, el)
		switch el.kind {
		case nodeScalar:
			n.list = append(n.list, el.scalar)
		case nodeAbsent:
		default:
			js, err := jsonScalar(rv.Index(i).Interface())
			if err != nil {
				return node{}, err
			}
			n.list = append(n.list, js.scalar)
		}
	}
	return n, nil
}

// objectNode turns a struct or a map into an object through its JSON form,
// so that member names, omitempty and custom marshalers all match the body
// encoding. Members keep their JSON order (struct field order; maps are
// sorted by encoding/json); null members are absent.
func objectNode(v any) (node, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return node{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	n, err := decodeNode(dec)
	if err != nil {
		return node{}, err
	}
	if n.kind == nodeObject && len(n.keys) == 0 {
		return node{}, nil
	}
	return n, nil
}

// decodeNode reads one JSON value from dec as a node, keeping member order.
func decodeNode(dec *json.Decoder) (node, error) {
	tok, err := dec.Token()
	if err != nil {
		return node{}, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			return decodeList(dec)
		}
		return decodeObject(dec)
	case nil:
		return node{}, nil
	case string:
		return node{kind: nodeScalar, scalar: t}, nil
	case json.Number:
		return node{kind: nodeScalar, scalar: t.String()}, nil
	case bool:
		return node{kind: nodeScalar, scalar: strconv.FormatBool(t)}, nil
	}
	return node{}, fmt.Errorf("unexpected JSON token %v", tok)
}

// decodeObject reads the members of an object whose '{' was consumed.
func decodeObject(dec *json.Decoder) (node, error) {
	n := node{kind: nodeObject}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return node{}, err
		}
		val, err := decodeNode(dec)
		if err != nil {
			return node{}, err
		}
		if val.kind != nodeAbsent {
			n.keys = append(n.keys, tok.(string))
			n.vals = append(n.vals, val)
		}
	}
	_, err := dec.Token()
	return n, err
}

// decodeList reads the elements of an array whose '[' was consumed; nested
// arrays and objects inside a list are flattened to scalars in order.
func decodeList(dec *json.Decoder) (node, error) {
	n := node{kind: nodeList}
	for dec.More() {
		val, err := decodeNode(dec)
		if err != nil {
			return node{}, err
		}
		n.list = append(n.list, val.flatten()...)
		n.items = append(n.items, val)
	}
	_, err := dec.Token()
	return n, err
}

// flatten lists a node's scalars in order.
func (n node) flatten() []string {
	switch n.kind {
	case nodeScalar:
		return []string{n.scalar}
	case nodeList:
		return n.list
	case nodeObject:
		var out []string
		for i, k := range n.keys {
			out = append(out, k)
			out = append(out, n.vals[i].flatten()...)
		}
		return out
	}
	return nil
}

// pairs lists an object's members as key and flattened value, joining a
// member's own list with sep.
func (n node) pairs(sep string) (keys, vals []string) {
	for i, k := range n.keys {
		keys = append(keys, k)
		vals = append(vals, strings.Join(n.vals[i].flatten(), sep))
	}
	return keys, vals
}
