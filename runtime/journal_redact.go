package runtime

import (
	"net/http"
	"net/url"
	"strings"
)

// credentialNames are the header and query parameter names a journal never
// keeps, lower case: the standard credential headers and the names APIs use
// for API keys and tokens. Credentials that request editors add (the
// generated With<Scheme>Auth options) never reach the journal at all: it
// copies the request before the editors run.
var credentialNames = map[string]bool{
	"authorization": true, "proxy-authorization": true, "cookie": true,
	"x-api-key": true, "api-key": true, "apikey": true, "api_key": true, "x-apikey": true,
	"x-auth-token": true, "x-access-token": true, "access_token": true, "x-amz-security-token": true,
	"token": true, "client_secret": true, "x-csrf-token": true,
}

// IsCredentialName reports whether a header or query parameter named name
// is one a Journal never keeps (compared without case).
func IsCredentialName(name string) bool {
	return credentialNames[strings.ToLower(name)]
}

// redactHeader copies h without its credential headers.
func redactHeader(h http.Header) http.Header {
	out := make(http.Header, len(h))
	for k, v := range h {
		if !IsCredentialName(k) {
			out[k] = append([]string(nil), v...)
		}
	}
	return out
}

// redactURL is u as a string, without its user information and the query
// parameters that carry credentials.
func redactURL(u *url.URL) string {
	c := *u
	c.User = nil
	if c.RawQuery == "" {
		return c.String()
	}
	q, err := url.ParseQuery(c.RawQuery)
	if err != nil {
		// A query that does not parse cannot be filtered by name: keep
		// none of it rather than a credential.
		c.RawQuery = ""
		return c.String()
	}
	changed := false
	for k := range q {
		if IsCredentialName(k) {
			delete(q, k)
			changed = true
		}
	}
	if changed {
		c.RawQuery = q.Encode()
	}
	return c.String()
}
