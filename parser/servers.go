package parser

import (
	"net/url"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemgen/idemgen/ir"
)

// ruleServer flags an operation-level or path-level server the client
// cannot send to by default (relative, or with variables).
const ruleServer = "server"

// serverList converts a kin-openapi servers list, skipping nil entries.
func serverList(ss openapi3.Servers) []ir.Server {
	var out []ir.Server
	for _, s := range ss {
		if s != nil {
			out = append(out, ir.Server{URL: s.URL, Description: s.Description})
		}
	}
	return out
}

// basePath is the path every operation is served under whatever the host
// the client is given: a Swagger 2.0 document's basePath (the path of the
// server openapi2conv made from host and basePath, or the bare basePath when
// there is no host), or the path of an OpenAPI 3 document's first server
// when that server is relative ("/api/v3"). An absolute OpenAPI 3 server
// names one host and its path together, so it gives none.
func basePath(servers []ir.Server, swagger bool) string {
	if len(servers) == 0 || strings.Contains(servers[0].URL, "{") {
		return ""
	}
	u, err := url.Parse(servers[0].URL)
	if err != nil || (u.Host != "" && !swagger) || u.Scheme != "" && u.Host == "" {
		return ""
	}
	p := strings.TrimSuffix(u.Path, "/")
	if !strings.HasPrefix(p, "/") {
		return ""
	}
	return p
}

// operationServers returns the servers an operation declares, else those of
// its path item, else nil (the document's servers apply). A first server the
// client cannot use by default (relative or with variables) is reported: the
// operation is then sent to the client's server.
func (b *builder) operationServers(r *rawOp, id string) []ir.Server {
	at := r.at.at("servers")
	var out []ir.Server
	switch {
	case r.op.Servers != nil && len(*r.op.Servers) > 0:
		out = serverList(*r.op.Servers)
	case len(r.item.Servers) > 0:
		out, at = serverList(r.item.Servers), r.itemAt.at("servers")
	}
	if len(out) > 0 && !ir.AbsoluteServer(out[0].URL) {
		b.l.sink.warnf(at, id, ruleServer,
			"server %q is not an absolute URL without variables; the operation is sent to the client's server", out[0].URL)
	}
	return out
}
