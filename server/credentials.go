package idemsrv

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"

	"github.com/idemgen/idemgen/ledger"
)

// Where a credential travels.
const (
	InHeader = "header"
	InQuery  = "query"
	InCookie = "cookie"
	// InTLS is the client certificate of a mutualTLS scheme.
	InTLS = "tls"
)

// Credential is where one security scheme of an operation carries its
// credentials: the Authorization header for HTTP and OAuth schemes, the
// named header, query parameter or cookie for an API key.
type Credential struct {
	In, Name string
}

// anonymous is the key scope of callers that send no credentials to an
// operation that needs none: they share it, and only the key, a random
// value the client made, keeps their results apart.
const anonymous = "anonymous"

var errNoCredentials = errors.New("the operation requires credentials and the request carries none")

// caller scopes a keyed request by a hash of the credentials it carries for
// the operation's security schemes, so one key names one intent of one
// principal and two principals never see each other's stored results. The
// credentials themselves are never stored.
func (rt Route) caller(r *http.Request) (string, error) {
	h := sha256.New()
	found := false
	for _, c := range rt.Credentials {
		v := credential(r, c)
		if v == "" {
			continue
		}
		found = true
		for _, s := range []string{c.In, c.Name, v} {
			h.Write([]byte(s))
			h.Write([]byte{0})
		}
	}
	switch {
	case found:
		return "cred:" + hex.EncodeToString(h.Sum(nil)), nil
	case rt.Anonymous:
		return anonymous, nil
	}
	return "", errNoCredentials
}

// credential is the value of one credential in r, or "".
func credential(r *http.Request, c Credential) string {
	switch c.In {
	case InHeader:
		return r.Header.Get(c.Name)
	case InQuery:
		return r.URL.Query().Get(c.Name)
	case InCookie:
		if ck, err := r.Cookie(c.Name); err == nil {
			return ck.Value
		}
	case InTLS:
		if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
			sum := sha256.Sum256(r.TLS.PeerCertificates[0].Raw)
			return hex.EncodeToString(sum[:])
		}
	}
	return ""
}

// ledgerCredentials are the route's credentials the ledger leaves out of a
// keyed request's fingerprint: every header, query parameter and cookie a
// security scheme of the operation names, in any of its alternative
// requirements. A credential is who calls, not what is asked: the caller's
// scope carries it, and a key rotated between two attempts of one intent
// must find the intent's stored answer.
func (rt Route) ledgerCredentials() []ledger.Credential {
	var out []ledger.Credential
	for _, c := range rt.Credentials {
		switch c.In {
		case InHeader, InQuery, InCookie:
			out = append(out, ledger.Credential{In: c.In, Name: c.Name})
		}
	}
	return out
}
