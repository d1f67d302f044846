package mock

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
)

// keyOf finds a keyed operation's key header: x-idempotent {key: {in:
// header, name}} on the operation or its path item, or a declared
// Idempotency-Key header parameter. optional says the key may be absent
// (only a declared, not required parameter allows that). x-idempotent:
// true or false says the operation is not keyed, whatever it declares: an
// Idempotency-Key parameter is then an ordinary header, as the generated
// client sends it (the key-parameter-ignored rule of docs/extensions.md).
func keyOf(item *openapi3.PathItem, op *openapi3.Operation) (string, bool) {
	for _, ext := range []map[string]any{op.Extensions, item.Extensions} {
		v, ok := ext["x-idempotent"]
		if !ok {
			continue
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return "", false
		}
		key, _ := obj["key"].(map[string]any)
		name, _ := key["name"].(string)
		if in, _ := key["in"].(string); name != "" && (in == "" || in == "header") {
			return name, false
		}
		return defaultKeyHeader, false
	}
	for _, p := range params(item, op) {
		if p.In == openapi3.ParameterInHeader && strings.EqualFold(p.Name, defaultKeyHeader) {
			return p.Name, !p.Required
		}
	}
	return "", false
}

// openLedger opens the SQLite store and gives each keyed operation its
// ledger, whose callers are told apart by the operation's own credentials.
func (s *Server) openLedger() error {
	if s.opts.Proxy != nil || !slices.ContainsFunc(s.routes, func(r *route) bool { return r.key != "" }) {
		return nil
	}
	store, path, err := s.openStore()
	if err != nil {
		return fmt.Errorf("ledger %s: %w", path, err)
	}
	s.store = store
	stored := s.declaredHeaders()
	for _, r := range s.routes {
		if r.key == "" {
			continue
		}
		creds := r.creds
		r.ledger, err = ledger.New(ledger.Config{
			Store:         store,
			Caller:        func(req *http.Request) (string, error) { return callerOf(req, creds), nil },
			KeyHeader:     r.key,
			Optional:      r.keyOpt,
			MaxBody:       s.opts.MaxBody,
			StoredHeaders: stored,
		})
		if err != nil {
			s.Close()
			return err
		}
	}
	return nil
}

// ledgerStore is what sqlitestore.Open returns, as the mock uses it.
type ledgerStore interface {
	ledger.Store
	io.Closer
}

// openStore opens Options.Ledger, or a throwaway file in a temporary folder
// that Close removes.
func (s *Server) openStore() (ledgerStore, string, error) {
	path := s.opts.Ledger
	var opts []sqlitestore.Option
	if path == "" {
		dir, err := os.MkdirTemp("", "idemgen-mock-")
		if err != nil {
			return nil, "", err
		}
		s.tmpDir = dir
		path = filepath.Join(dir, "ledger.db")
		// A throwaway ledger need not survive a power loss.
		opts = append(opts, sqlitestore.WithSynchronous("OFF"))
	}
	store, err := sqlitestore.Open(context.Background(), path, opts...)
	if err != nil {
		s.removeTmp()
		return nil, path, err
	}
	return store, path, nil
}

// declaredHeaders are every response header the keyed operations declare,
// kept by the ledger for replays.
func (s *Server) declaredHeaders() []string {
	seen := map[string]bool{}
	for _, r := range s.routes {
		if r.key == "" || r.op.Responses == nil {
			continue
		}
		for _, resp := range r.op.Responses.Map() {
			if resp.Value != nil {
				for h := range resp.Value.Headers {
					seen[http.CanonicalHeaderKey(h)] = true
				}
			}
		}
	}
	return sortedKeys(seen)
}

// credential is where a request carries one credential.
type credential struct {
	in   string // header, query, cookie, or tls (the client certificate)
	name string
}

// baseCredentials scope every keyed operation, whatever its security says:
// an operation that declares none may still be called with a token.
var baseCredentials = []credential{{"header", "Authorization"}, {"header", "X-Api-Key"}}

// credentialsOf is every credential the operation's effective security
// (its own, else the document's) names, in any of its alternatives, plus
// baseCredentials, sorted and unique.
func credentialsOf(doc *openapi3.T, op *openapi3.Operation) []credential {
	reqs := doc.Security
	if op.Security != nil {
		reqs = *op.Security
	}
	out := slices.Clone(baseCredentials)
	for _, req := range reqs {
		for name := range req {
			if c, ok := schemeCredential(doc, name); ok {
				out = append(out, c)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].in != out[j].in {
			return out[i].in < out[j].in
		}
		return out[i].name < out[j].name
	})
	return slices.Compact(out)
}

// schemeCredential is where the security scheme called name is sent.
func schemeCredential(doc *openapi3.T, name string) (credential, bool) {
	if doc.Components == nil || doc.Components.SecuritySchemes[name] == nil || doc.Components.SecuritySchemes[name].Value == nil {
		return credential{}, false
	}
	sc := doc.Components.SecuritySchemes[name].Value
	switch sc.Type {
	case "apiKey":
		if sc.In == "header" {
			return credential{"header", http.CanonicalHeaderKey(sc.Name)}, true
		}
		return credential{sc.In, sc.Name}, true
	case "mutualTLS":
		return credential{in: "tls"}, true
	default: // http, oauth2, openIdConnect
		return credential{"header", "Authorization"}, true
	}
}

// callerOf scopes keys by the credentials sent, hashed: two callers that
// differ in any credential the operation accepts never share a key (nor
// see each other's stored answers and Set-Cookie).
func callerOf(r *http.Request, creds []credential) string {
	h := sha256.New()
	sent := false
	for _, c := range creds {
		values := credentialValues(r, c)
		sent = sent || len(values) > 0
		// Length-prefixed, so that no two lists of values hash alike.
		fmt.Fprintf(h, "%d:%s%d:%s%d:", len(c.in), c.in, len(c.name), c.name, len(values))
		for _, v := range values {
			fmt.Fprintf(h, "%d:%s", len(v), v)
		}
	}
	if !sent {
		return "anonymous"
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// credentialValues is what the request carries where c says.
func credentialValues(r *http.Request, c credential) []string {
	switch c.in {
	case "header":
		return r.Header.Values(c.name)
	case "query":
		return r.URL.Query()[c.name]
	case "cookie":
		var out []string
		for _, ck := range r.CookiesNamed(c.name) {
			out = append(out, ck.Value)
		}
		return out
	case "tls":
		if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
			return []string{string(r.TLS.PeerCertificates[0].Raw)}
		}
	}
	return nil
}
