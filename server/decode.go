package idemsrv

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"github.com/idemgen/idemgen/runtime/problem"
	"github.com/idemgen/idemgen/runtime/wire"
)

var (
	errStyle        = errors.New("the value is not written in the parameter's style")
	errOddObject    = errors.New("an object needs a value for every member")
	errTooManyPairs = fmt.Errorf("the query string has more than %d parameters", maxQueryPairs)
)

// ParamError is a parameter the request carried that could not be read into
// its declared type; it is answered 400, naming the parameter.
type ParamError struct {
	// In is "path", "query", "header" or "cookie"; Name the wire name.
	In, Name string
	Err      error
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("%s parameter %q: %v", e.In, e.Name, e.Err)
}

func (e *ParamError) Unwrap() error { return e.Err }

// Request decodes one request's parameters and body into the generated
// params and body types. It keeps the first failure; Failed answers it.
type Request struct {
	e      *Engine
	w      http.ResponseWriter
	r      *http.Request
	pairs  []pair
	parsed bool
	// vals are the raw values of the path parameters, read on the first
	// Path call into valBuf (no allocation for up to four of them).
	vals   []string
	routed bool
	valBuf [4]string
	status int
	typ    string
	err    error
	// claimed are the query names the parameters read; formObjects the
	// exploded form objects read last (formobject.go).
	claimed     []string
	formObjects []pendingObject
}

// Decode starts decoding r. Generated code calls the methods in the order
// of the operation's parameters, then the body, then Failed.
func (e *Engine) Decode(w http.ResponseWriter, r *http.Request) *Request {
	return &Request{e: e, w: w, r: r}
}

// fail keeps the first failure.
func (d *Request) fail(status int, typ string, err error) {
	if d.err == nil {
		d.status, d.typ, d.err = status, typ, err
	}
}

// Failed reports whether anything could not be decoded, and if so answers
// the request with a problem naming it (400, 413 or 415).
func (d *Request) Failed() bool {
	d.placeFormObjects()
	if d.err == nil {
		return false
	}
	problem.Write(d.w, d.status, d.typ, d.err.Error())
	return true
}

// Path reads the path parameter at index (0 is the first parameter of
// the route's template, left to right) into dst, a pointer to the params
// field. The value is the text the router matched in the escaped path, so
// that an escaped slash, comma or dot stays inside it; a request that did
// not come through the Engine's router (Root) has none, and is answered 400
// naming the parameter as missing.
func (d *Request) Path(p wire.Param, index int, dst any) {
	if !d.routed {
		d.routed = true
		d.vals, _ = d.e.router.values(d.r, d.valBuf[:0])
	}
	if index < 0 || index >= len(d.vals) {
		d.param("path", p.Name, errors.New("missing"))
		return
	}
	raw := d.vals[index]
	d.place("path", p, dst, func(kind valueKind) (value, error) {
		v, err := pathValue(p, raw, kind)
		if err == nil && dotValue(v) {
			return value{}, errDotSegment
		}
		return v, err
	})
}

// Query reads a query parameter into dst.
func (d *Request) Query(p wire.Param, dst any) {
	if !d.parsed {
		d.parsed = true
		pairs, err := parseQuery(d.r.URL.RawQuery)
		if err != nil {
			d.fail(http.StatusBadRequest, problem.BadRequest, fmt.Errorf("query string: %w", err))
		}
		d.pairs = pairs
	}
	if isFormObject(p, dst) {
		d.formObjects = append(d.formObjects, pendingObject{p, dst})
		return
	}
	d.claimQuery(p)
	d.place("query", p, dst, func(kind valueKind) (value, error) { return queryValue(p, d.pairs, kind) })
}

// Header reads a header parameter into dst; an absent header leaves dst as
// it is.
func (d *Request) Header(p wire.Param, dst any) {
	vals := d.r.Header.Values(p.Name)
	if len(vals) == 0 {
		return
	}
	d.place("header", p, dst, func(kind valueKind) (value, error) { return headerValue(p, strings.Join(vals, ","), kind) })
}

// Cookie reads a cookie parameter (form style) into dst.
func (d *Request) Cookie(p wire.Param, dst any) {
	var mine []pair
	for _, c := range d.r.Cookies() {
		mine = append(mine, pair{name: c.Name, raw: c.Value})
	}
	d.place("cookie", p, dst, func(kind valueKind) (value, error) { return queryValue(p, mine, kind) })
}

// Key reads the idempotency key header (bare, or a structured-field
// string) into dst.
func (d *Request) Key(header string, dst *string) {
	k := strings.TrimSpace(d.r.Header.Get(header))
	if len(k) >= 2 && k[0] == '"' && k[len(k)-1] == '"' {
		k = k[1 : len(k)-1]
	}
	*dst = k
}

// place decodes one parameter with read and assigns it to dst; a
// content-described parameter (p.JSON) is JSON text.
func (d *Request) place(in string, p wire.Param, dst any, read func(valueKind) (value, error)) {
	if d.err != nil {
		return
	}
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		d.param(in, p.Name, errors.New("no destination (a generator bug)"))
		return
	}
	kind := valueKindOf(rv.Elem().Type())
	if p.JSON {
		kind = kindScalar
	}
	v, err := read(kind)
	if err == nil && v.present {
		if p.JSON {
			err = d.e.unmarshal([]byte(v.scalar), dst)
		} else {
			err = assign(rv.Elem(), v)
		}
	}
	if err != nil {
		d.param(in, p.Name, err)
	}
}

func (d *Request) param(in, name string, err error) {
	d.fail(http.StatusBadRequest, problem.BadRequest, &ParamError{In: in, Name: name, Err: err})
}
