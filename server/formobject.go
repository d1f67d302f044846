package idemsrv

import (
	"context"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/idemgen/idemgen/runtime/wire"
)

// An exploded form object (metadata[key1]=v is deepObject; form explodes to
// key1=v) has no name of its own on the wire: its members are query pairs
// like any other parameter's. It gets the pairs that no other parameter of
// the operation reads and that are not a query credential, so it is read
// last, in Failed, once every other parameter has claimed its name.

// queryCredentialsKey holds, in a request's context, the names of the query
// parameters that carry the operation's credentials.
type queryCredentialsKey struct{}

// withQueryCredentials records the route's query credential names for
// Decode; routes without one are left as they are.
func withQueryCredentials(rt Route, h http.Handler) http.Handler {
	var names []string
	for _, c := range rt.Credentials {
		if c.In == "query" {
			names = append(names, c.Name)
		}
	}
	if len(names) == 0 {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), queryCredentialsKey{}, names)))
	})
}

// isFormObject reports whether p, read into dst, is an exploded form object.
func isFormObject(p wire.Param, dst any) bool {
	rv := reflect.ValueOf(dst)
	return !p.JSON && p.Explode && p.Style == wire.StyleForm && rv.Kind() == reflect.Pointer &&
		!rv.IsNil() && valueKindOf(rv.Elem().Type()) == kindObject
}

// claimQuery notes the query name p reads (a deepObject's name[member]
// pairs are matched by the part before the bracket).
func (d *Request) claimQuery(p wire.Param) {
	if d.claimed == nil {
		// One allocation for the usual few query parameters.
		d.claimed = make([]string, 0, 8)
	}
	d.claimed = append(d.claimed, p.Name)
}

// formObjectPairs are the pairs left to an exploded form object.
func (d *Request) formObjectPairs() []pair {
	creds, _ := d.r.Context().Value(queryCredentialsKey{}).([]string)
	var out []pair
	for _, q := range d.pairs {
		name, _, _ := strings.Cut(q.name, "[")
		if slices.Contains(d.claimed, name) || slices.Contains(creds, q.name) {
			continue
		}
		out = append(out, q)
	}
	return out
}

// placeFormObjects reads the exploded form objects put off by Query.
func (d *Request) placeFormObjects() {
	for _, f := range d.formObjects {
		d.place("query", f.p, f.dst, func(valueKind) (value, error) { return formObject(d.formObjectPairs()) })
	}
	d.formObjects = nil
}

type pendingObject struct {
	p   wire.Param
	dst any
}
