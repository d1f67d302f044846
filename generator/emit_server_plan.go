package generator

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/idemgen/idemgen/ir"
)

// serverRoute is how the generated server routes one operation.
type serverRoute struct {
	op *ir.Operation
	// params maps a path parameter's name to its place among the
	// template's parameters, left to right (what Request.Path reads).
	params map[string]int
	// unrouted is set when the router cannot take the operation (another
	// one has its method and template, or the template cannot be split):
	// NewServer does not route it and the Handler has no method for it.
	unrouted string
}

// serverRoutes plans the routes of ops, in IR order. The router takes every
// template OpenAPI allows, overlapping ones included; an operation whose
// method and template (up to parameter names) are an earlier one's is not
// routed, so that NewServer never fails on the spec's own paths.
func serverRoutes(ops []*ir.Operation) []*serverRoute {
	var out []*serverRoute
	seen := map[string]*ir.Operation{}
	for _, op := range ops {
		rt := &serverRoute{op: op}
		key, params, err := routeTemplate(requestPath(op))
		first := seen[op.Method+" "+key]
		switch {
		case err != "":
			rt.unrouted = "its path template cannot be routed: " + err
		case first != nil:
			rt.unrouted = fmt.Sprintf("its method and path template are those of operation %q, which has the route", first.ID)
		default:
			seen[op.Method+" "+key] = op
			rt.params = params
		}
		out = append(out, rt)
	}
	return out
}

// routeCredentials lists where op's security schemes carry credentials, in
// scheme order and once each: (in, name) pairs.
func (g *generation) routeCredentials(op *ir.Operation) [][2]string {
	var out [][2]string
	for _, name := range opSchemes(op) {
		for _, s := range g.api.SecuritySchemes {
			if s.Name != name {
				continue
			}
			switch s.Type {
			case "apiKey":
				out = append(out, [2]string{string(s.In), s.ParamName})
			case "mutualTLS":
				out = append(out, [2]string{"tls", ""})
			default:
				out = append(out, [2]string{"header", "Authorization"})
			}
		}
	}
	return slices.Compact(out)
}

// anonymousAllowed reports whether op may be called without credentials.
func anonymousAllowed(op *ir.Operation) bool {
	for _, req := range op.Security {
		if len(req.Schemes) == 0 {
			return true
		}
	}
	return len(op.Security) == 0
}

// preconditions lists op's required precondition headers (If-Match,
// If-Unmodified-Since), by their wire names.
func preconditions(op *ir.Operation) []string {
	var out []string
	for _, p := range op.Params {
		if p.In == ir.InHeader && p.Required &&
			(strings.EqualFold(p.Name, "If-Match") || strings.EqualFold(p.Name, "If-Unmodified-Since")) {
			out = append(out, p.Name)
		}
	}
	return out
}

// headerParams lists the wire names of op's header parameters other than
// its key: a keyed request's identity includes them.
func headerParams(op *ir.Operation) []string {
	var out []string
	for _, p := range op.Params {
		if p.In == ir.InHeader && !keyParam(op, p) {
			out = append(out, p.Name)
		}
	}
	return out
}

// cookieParams lists the cookie names op's cookie parameters arrive under,
// as the client sends them (query-escaped): a keyed request's identity
// includes them. An exploded object travels as one cookie per property.
func cookieParams(op *ir.Operation) []string {
	var out []string
	for _, p := range op.Params {
		if p.In != ir.InCookie {
			continue
		}
		out = append(out, url.QueryEscape(p.Name))
		if d := declaration(p.Type); p.Explode && p.ContentType == "" && d != nil && d.Kind == ir.KindObject {
			for _, prop := range d.Properties {
				out = append(out, url.QueryEscape(prop.Name))
			}
		}
	}
	return out
}

// declaredHeaders lists, once each in IR order, the response headers op
// declares on any of its responses: the ledger stores them with a keyed
// answer, so a replay carries them as the first answer did.
func declaredHeaders(op *ir.Operation) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range op.Responses {
		for _, h := range r.Headers {
			if k := http.CanonicalHeaderKey(h.Name); !seen[k] {
				seen[k] = true
				out = append(out, h.Name)
			}
		}
	}
	return out
}

// errorStatuses splits op's non-2xx responses into exact codes, classes and
// whether a default response is declared.
func errorStatuses(op *ir.Operation) (ir.StatusSet, bool) {
	var set ir.StatusSet
	def := false
	for _, r := range op.Responses {
		switch {
		case r.IsSuccess() || isRedirect(r):
		case r.Default:
			def = true
		case r.Class > 0:
			set.Classes = append(set.Classes, r.Class)
		default:
			set.Codes = append(set.Codes, r.Status)
		}
	}
	return set, def
}

// successStatus is the status a handler's answer is sent with when it does
// not set one: the first declared 2xx code, else the first declared 3xx (an
// operation whose answer is a redirect), else 200.
func successStatus(op *ir.Operation) int {
	for _, lo := range []int{200, 300} {
		for _, r := range op.Responses {
			if r.Status >= lo && r.Status < lo+100 {
				return r.Status
			}
		}
	}
	return 200
}

// serverRequires adds to a generated go.mod, with --server, the modules a
// server imports beside the runtime: the server runtime and the ledger, at
// the runtime's version (they are released together).
func (g *generation) serverRequires(files []File) {
	if !g.cfg.Server {
		return
	}
	v := g.requireVersion()
	for i, f := range files {
		if f.Name == "go.mod" {
			files[i].Content = append(f.Content, fmt.Sprintf("\nrequire (\n\tgithub.com/idemgen/idemgen/ledger %s\n\t%s %s\n)\n", v, srvPath, v)...)
		}
	}
}
