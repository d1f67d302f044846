package generator

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/idemgen/idemgen/ir"
)

// serverRoute is how the generated server routes one operation.
type serverRoute struct {
	op *ir.Operation
	// pattern is the http.ServeMux pattern ("POST /orders/{p0}"); "" when
	// the path cannot be one.
	pattern string
	// segments maps a path parameter's name to its segment index.
	segments map[string]int
	// why is set when the server does not serve the operation yet (it
	// answers 501); the Handler then has no method for it.
	why string
}

// serverRoutes plans the routes of ops, in IR order. A pattern that
// http.ServeMux refuses beside the ones before it (the same method and path
// as another operation's, or paths that overlap without one being more
// specific: /a/{x}/c and /a/b/{y}) is not served, so that NewServer never
// fails on the spec's own paths.
func serverRoutes(ops []*ir.Operation) []*serverRoute {
	var out []*serverRoute
	mux := http.NewServeMux()
	for _, op := range ops {
		rt := &serverRoute{op: op}
		rt.pattern, rt.segments = muxPattern(op)
		switch {
		case rt.pattern == "":
			rt.why = "its path cannot be an http.ServeMux pattern"
		case !register(mux, rt.pattern):
			rt.why = "its method and path overlap another operation's"
			rt.pattern = ""
		}
		out = append(out, rt)
	}
	return out
}

// register adds pattern to mux, reporting whether the mux accepted it.
func register(mux *http.ServeMux, pattern string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	mux.Handle(pattern, http.NotFoundHandler())
	return true
}

// muxPattern turns the path template into a ServeMux pattern: every
// {name} must be a whole segment and becomes {p<i>} (ServeMux wildcards
// must be Go identifiers); a trailing slash is matched exactly ({$}).
func muxPattern(op *ir.Operation) (string, map[string]int) {
	segs := strings.Split(strings.TrimPrefix(op.Path, "/"), "/")
	idx := map[string]int{}
	var b strings.Builder
	for i, s := range segs {
		b.WriteByte('/')
		if name, ok := strings.CutPrefix(s, "{"); ok && strings.HasSuffix(name, "}") {
			name = strings.TrimSuffix(name, "}")
			if strings.ContainsAny(name, "{}") {
				return "", nil
			}
			idx[name] = i
			b.WriteString("{p" + strconv.Itoa(len(idx)-1) + "}")
			continue
		}
		if strings.ContainsAny(s, "{} \t%") {
			return "", nil
		}
		b.WriteString(s)
	}
	p := b.String()
	if strings.HasSuffix(p, "/") {
		p += "{$}"
	}
	return op.Method + " " + p, idx
}

// routeCredentials lists where op's security schemes carry credentials, in
// scheme order and once each: (in, name) pairs.
func (g *gen) routeCredentials(op *ir.Operation) [][2]string {
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
func (g *gen) serverRequires(files []File) {
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
