package runtime

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// What a Journal keeps of a request is an allowlist, per operation: the
// values of the parameters the operation declares (Operation.HeaderParams,
// QueryParams and CookieParams, which leave out what an apiKey security
// scheme names), of its key header and of the protocol headers a resend needs
// (protocolHeaders). Of any other header, query or cookie parameter it
// keeps the name alone: a header with no value, a query pair or cookie
// without "=". Such an entry is not resent (Runner.Resend refuses it with
// ErrNotResendable), since a resend without those values could mean
// something else than the call; a reconciler reports it as needing a
// person. User-Agent is not kept: a resend sends the resending client's.

// protocolHeaders are the headers a journal keeps, with their values, for
// every operation: what the body bytes are (Content-Type,
// Content-Encoding), what answer the caller takes (Accept), and the
// preconditions that make the call conditional.
var protocolHeaders = []string{"Accept", "Content-Encoding", "Content-Type", "If-Match", "If-Modified-Since", "If-None-Match",
	"If-Unmodified-Since"}

// credentialNames are the header and query parameter names a journal never
// keeps the value of, lower case, even when the operation declares them (a
// document that declares its API key as an ordinary parameter): the
// standard credential headers and the names APIs use for API keys and
// tokens. The allowlist is the rule; this list is a floor under it.
var credentialNames = map[string]bool{
	"authorization": true, "proxy-authorization": true, "cookie": true,
	"x-api-key": true, "api-key": true, "apikey": true, "api_key": true, "x-apikey": true,
	"x-auth-token": true, "x-access-token": true, "access_token": true, "x-amz-security-token": true,
	"token": true, "client_secret": true, "x-csrf-token": true,
}

// IsCredentialName reports whether a header, query or cookie parameter
// named name is one whose value a Journal never keeps, even when its
// operation declares it (compared without case). It is not the journal's
// rule, which keeps only what the operation declares (see WithJournal): a
// list of names is never complete.
func IsCredentialName(name string) bool {
	return credentialNames[strings.ToLower(name)]
}

// headerRule is what a journal does with one request header.
type headerRule int

const (
	// keepName keeps the header's name alone: its value is withheld.
	keepName headerRule = iota
	// keepValue keeps the header with its values.
	keepValue
	// keepCookies keeps the Cookie header's declared cookies, and the
	// names alone of the others.
	keepCookies
	// dropHeader keeps nothing: the resending client sets its own.
	dropHeader
)

// ruleFor is what a journal does with header name for a request of op.
func (op *Operation) ruleFor(name string) headerRule {
	switch {
	case strings.EqualFold(name, "Cookie"):
		return keepCookies
	case strings.EqualFold(name, "User-Agent"):
		return dropHeader
	case op.Safety == Keyed && op.KeyHeader != "" && strings.EqualFold(name, op.KeyHeader):
		// The key names the intent; it is no credential, whatever its name.
		return keepValue
	case IsCredentialName(name):
		return keepName
	case containsFold(protocolHeaders, name), containsFold(op.HeaderParams, name):
		return keepValue
	}
	return keepName
}

// containsFold reports whether names holds name, compared without case.
func containsFold(names []string, name string) bool {
	return slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, name) })
}

// declaredQuery reports whether a query pair whose name is rawName (as sent,
// escaped) keeps its value: a name op declares that is not a credential's,
// or a member of one (a deepObject's name[member]).
func (op *Operation) declaredQuery(rawName string) bool {
	name, err := url.QueryUnescape(rawName)
	if err != nil {
		return false
	}
	param, _, _ := strings.Cut(name, "[")
	declared := slices.Contains(op.QueryParams, name) || slices.Contains(op.QueryParams, param)
	return declared && !IsCredentialName(param) && !IsCredentialName(name)
}

// journalHeader is h as an entry of op keeps it.
func journalHeader(op *Operation, h http.Header) http.Header {
	out := make(http.Header, len(h))
	for name, vals := range h {
		switch op.ruleFor(name) {
		case keepValue:
			out[name] = slices.Clone(vals)
		case keepCookies:
			out[name] = journalCookies(op, vals)
		case keepName:
			out[name] = []string{}
		}
	}
	return out
}

// journalCookies are the values of a Cookie header as an entry of op keeps
// them: each declared cookie whole, the others by name.
func journalCookies(op *Operation, vals []string) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		pairs := strings.Split(v, ";")
		for j, p := range pairs {
			trimmed := strings.TrimLeft(p, " ")
			name, _, _ := strings.Cut(trimmed, "=")
			if !slices.Contains(op.CookieParams, name) || IsCredentialName(name) {
				pairs[j] = p[:len(p)-len(trimmed)] + name
			}
		}
		out[i] = strings.Join(pairs, ";")
	}
	return out
}

// journalURL is u as an entry of op keeps it: without user information or
// fragment, its query as sent, byte for byte, but for the values of the
// pairs op does not declare (journalQuery).
func journalURL(op *Operation, u *url.URL) string {
	c := *u
	c.User = nil
	c.Fragment, c.RawFragment = "", ""
	c.RawQuery = journalQuery(op, u.RawQuery)
	return c.String()
}

// journalQuery filters a raw query by splitting it on "&" itself, not with
// url.ParseQuery: that refuses queries servers accept (a ";" in a value),
// and re-encodes what it keeps. A pair op declares is kept as sent; of any
// other, its name alone.
func journalQuery(op *Operation, raw string) string {
	if raw == "" {
		return ""
	}
	pairs := strings.Split(raw, "&")
	for i, p := range pairs {
		name, _, _ := strings.Cut(p, "=")
		if !op.declaredQuery(name) {
			pairs[i] = name
		}
	}
	return strings.Join(pairs, "&")
}

// withheldParam names the first header, query pair or cookie of an entry of
// op whose value the journal did not keep, or that op does not declare:
// such an entry is not resent. "" when there is none.
func withheldParam(op *Operation, h http.Header, rawQuery string) string {
	for name, vals := range h {
		switch op.ruleFor(name) {
		case keepName:
			return "header " + name
		case keepValue:
			if len(vals) == 0 {
				return "header " + name
			}
		case keepCookies:
			if c := withheldCookie(op, vals); c != "" {
				return "cookie " + c
			}
		}
	}
	if rawQuery == "" {
		return ""
	}
	for _, p := range strings.Split(rawQuery, "&") {
		if name, _, _ := strings.Cut(p, "="); p != "" && !op.declaredQuery(name) {
			return fmt.Sprintf("query parameter %q", name)
		}
	}
	return ""
}

// withheldCookie names the first cookie of a Cookie header's values that op
// does not declare, or whose value was not kept.
func withheldCookie(op *Operation, vals []string) string {
	for _, v := range vals {
		for _, p := range strings.Split(v, ";") {
			name, _, hasValue := strings.Cut(strings.TrimLeft(p, " "), "=")
			if !hasValue || !slices.Contains(op.CookieParams, name) || IsCredentialName(name) {
				return name
			}
		}
	}
	return ""
}
