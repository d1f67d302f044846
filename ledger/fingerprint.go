package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Fingerprint returns the canonical fingerprint of a request: a hex SHA-256
// over the method, the operation (route), the request target (RequestTarget:
// the path with its parameter values, and the query) and the body. The
// target matters because one operation serves many resources: the same key
// sent to /orders/A/payments and /orders/B/payments is two different
// requests, and the second must get 422, never the first one's result.
//
// A JSON body (by its content type, or any body when contentType is empty) is
// canonicalised first, so that key order and insignificant whitespace do not
// make two equal payloads look different; any other body, or JSON that does
// not parse, is hashed as raw bytes. A multipart body is hashed as its
// parts parse (see hashMultipart), without its boundary, which a client
// draws anew for each body it builds; one that does not parse is hashed raw.
//
// headers are the request's other identity fields: the headers
// (Config.FingerprintHeaders, Route.FingerprintHeaders) as HeaderFields
// returns them, then the cookies (Route.FingerprintCookies) as CookieFields
// returns them; without any the fingerprint is what it was before the
// options existed.
func Fingerprint(method, operation, target, contentType string, body []byte, headers ...string) string {
	var canon []byte
	if isJSON(contentType) {
		canon, _ = CanonicalJSON(body)
	}
	return fingerprint(method, operation, target, contentType, body, canon, headers)
}

// fingerprint is Fingerprint with the body's canonical JSON form computed
// by the caller (nil when the body is not JSON, or not meant as JSON). The
// fields go through the hash in one write, the body in another.
func fingerprint(method, operation, target, contentType string, body, canon []byte, headers []string) string {
	kind, payload := "raw", body
	if canon != nil {
		kind, payload = "json", canon
	} else if boundary := multipartBoundary(contentType); boundary != "" {
		if parts, ok := hashMultipart(body, boundary); ok {
			kind, payload = "multipart", parts
		}
	}
	n := 8*6 + len(method) + len(operation) + len(target) + len(kind) + len("headers")
	for _, f := range headers {
		n += 8 + len(f)
	}
	buf := make([]byte, 0, n)
	// Length-prefixed fields: "POST"+"/a" and "POS"+"T/a" must not collide.
	buf = appendField(appendField(appendField(buf, method), operation), target)
	if len(headers) > 0 {
		buf = appendField(buf, "headers")
		for _, f := range headers {
			buf = appendField(buf, f)
		}
	}
	buf = appendLen(appendField(buf, kind), len(payload))
	h := sha256.New()
	h.Write(buf)
	h.Write(payload)
	var sum [2 * sha256.Size]byte
	hex.Encode(sum[:], h.Sum(buf[:0]))
	return string(sum[:])
}

// multipartBoundary is the boundary of a multipart content type, or "".
func multipartBoundary(contentType string) string {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || !strings.HasPrefix(mt, "multipart/") {
		return ""
	}
	return params["boundary"]
}

// HeaderFields returns one field per name for Fingerprint: the canonical
// name, then each value after a NUL (HTTP forbids NUL in values), so that an
// absent header, an empty one and "a, b" versus two values all differ.
func HeaderFields(h http.Header, names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		n = http.CanonicalHeaderKey(n)
		out = append(out, strings.Join(append([]string{n}, h.Values(n)...), "\x00"))
	}
	return out
}

// CookieFields returns one field per cookie name for Fingerprint, after
// HeaderFields' fields: "cookie:" and the name (cookie names are
// case-sensitive, unlike header names), then each value of a cookie of that
// name in the order sent, each after a NUL, so that an absent cookie, an
// empty one and two of one name all differ. Values are as net/http parses
// them, which is how the generated server reads its cookie parameters.
func CookieFields(cookies []*http.Cookie, names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		f := []string{"cookie:" + n}
		for _, c := range cookies {
			if c.Name == n {
				f = append(f, c.Value)
			}
		}
		out = append(out, strings.Join(f, "\x00"))
	}
	return out
}

// RequestTarget is the part of a request URL a fingerprint covers: the
// escaped path, then the query exactly as sent. The query is never decoded
// and encoded again: tags=a%2Cb (one tag, "a,b") and tags=a,b (two tags)
// are different requests, and so is any other spelling or order of the
// same parameters. A generated client sends the same query bytes on every
// attempt; a hand-made retry that reorders its parameters gets 422, never
// another request's result.
//
// The ledger itself leaves out of it the query parameters that carry a
// credential (Route.Credentials), and nothing else.
func RequestTarget(u *url.URL) string {
	return requestTarget(u, nil)
}

// requestTarget is RequestTarget without the query pairs whose decoded
// name is in omit; every other pair keeps its bytes and its place.
func requestTarget(u *url.URL, omit []string) string {
	query := u.RawQuery
	if len(omit) > 0 {
		query = withoutPairs(query, omit)
	}
	if query == "" {
		return u.EscapedPath()
	}
	return u.EscapedPath() + "?" + query
}

// withoutPairs removes from a raw query the pairs named in omit, read as
// net/http's URL.Query reads them (which is how the server reads a
// credential): a pair holding a semicolon is not a pair there, so it stays.
func withoutPairs(raw string, omit []string) string {
	var b strings.Builder
	kept := 0
	for pair := range strings.SplitSeq(raw, "&") {
		name, _, _ := strings.Cut(pair, "=")
		if decoded, err := url.QueryUnescape(name); err == nil && !strings.Contains(pair, ";") &&
			slices.Contains(omit, decoded) {
			continue
		}
		if kept > 0 {
			b.WriteByte('&')
		}
		b.WriteString(pair)
		kept++
	}
	return b.String()
}

func writeField(w io.Writer, b []byte) {
	w.Write(appendLen(nil, len(b)))
	w.Write(b)
}

// appendField appends s after its length as 8 big-endian bytes.
func appendField(buf []byte, s string) []byte {
	return append(appendLen(buf, len(s)), s...)
}

func appendLen(buf []byte, n int) []byte {
	return binary.BigEndian.AppendUint64(buf, uint64(n))
}

// isJSON accepts application/json, any +json type, and an absent type.
func isJSON(contentType string) bool {
	if contentType == "" || contentType == "application/json" {
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return mt == "application/json" || (len(mt) > 5 && mt[len(mt)-5:] == "+json")
}

var errTrailingData = errors.New("ledger: data after the JSON value")

// CanonicalJSON re-encodes one JSON value with object keys sorted, no
// insignificant whitespace and no HTML escaping. Numbers keep their original
// text (1.0 and 1 stay different: the server may treat them differently).
// Trailing data after the value is an error, as is invalid JSON. Of members
// with one name the last counts. A body in valid UTF-8 without lone
// surrogate escapes (every body the middleware admits) takes a one-pass
// path; the rest take canonicalDecoded's, which writes the same bytes.
func CanonicalJSON(body []byte) ([]byte, error) {
	if d, ok := parseJSONDoc(body); ok {
		return d.canonical(), nil
	}
	return canonicalDecoded(body)
}

// canonicalDecoded is CanonicalJSON through encoding/json: decode into any
// with UseNumber, encode with sorted map keys. It is the definition the
// one-pass path is tested against.
func canonicalDecoded(body []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errTrailingData
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	// encoding/json writes map keys in sorted order, which is the whole
	// canonical form we need once numbers are kept as json.Number.
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
