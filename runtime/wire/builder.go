package wire

import (
	"github.com/idemgen/idemgen/runtime/internal/shared"

	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Builder assembles one call's request from a server URL, a path template,
// parameters and a body. Generated methods use one Builder per call, as a
// local value (it does not escape, so building costs no allocation of its
// own):
//
//	b := wire.NewBuilder(c.server, "GET", "/orders/{order_id}")
//	b.Path(wire.Param{Name: "order_id", Style: wire.StyleSimple}, params.OrderID)
//	req, err := b.Build()
//
// The first error (a rejected path value, a body that does not encode) is
// kept and returned by Build, so a method checks once.
type Builder struct {
	server  *url.URL
	method  string
	path    string
	query   []string
	header  http.Header
	cookies []string
	body    []byte
	stream  []Piece
	key     string
	err     error
}

// NewBuilder starts a request for method on the path template, relative to
// server (which ParseServerURL returned).
// A query string written into the template itself ("/assistants?beta=true",
// as some documents do) is kept and sent before the parameters.
func NewBuilder(server *url.URL, method, pathTemplate string) Builder {
	b := Builder{server: server, method: method, path: pathTemplate}
	if path, query, ok := strings.Cut(pathTemplate, "?"); ok {
		b.path = path
		if query != "" {
			b.query = append(b.query, query)
		}
	}
	return b
}

// headers returns the request's header map, made on first use so that a
// call without headers does not allocate one.
func (b *Builder) headers() http.Header {
	if b.header == nil {
		b.header = make(http.Header, 2)
	}
	return b.header
}

// ParseServerURL parses the base URL of a client. It must be absolute (a
// scheme and a host); a trailing slash is dropped so that path templates,
// which start with one, join cleanly.
func ParseServerURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("server URL: %w", err)
	}
	if u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("server URL %q: want an absolute URL such as https://api.example.com", s)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = strings.TrimSuffix(u.RawPath, "/")
	return u, nil
}

// fail records the first error.
func (b *Builder) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// Path substitutes {name} in the template with the escaped value.
func (b *Builder) Path(p Param, v any) {
	s, err := expandPath(p, v)
	if err != nil {
		b.fail(err)
		return
	}
	b.path = replacePlaceholder(b.path, p.Name, s)
}

// replacePlaceholder replaces every {name} in path with value, without
// building the "{name}" string.
func replacePlaceholder(path, name, value string) string {
	var out strings.Builder
	rest := path
	for {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			break
		}
		end := i + 1 + len(name)
		if end < len(rest) && rest[end] == '}' && rest[i+1:end] == name {
			if out.Len() == 0 {
				out.Grow(len(path) + len(value))
			}
			out.WriteString(rest[:i])
			out.WriteString(value)
			rest = rest[end+1:]
			continue
		}
		out.WriteString(rest[:i+1])
		rest = rest[i+1:]
	}
	if out.Len() == 0 && rest == path {
		return path
	}
	out.WriteString(rest)
	return out.String()
}

// Query appends a query parameter; an absent value (nil pointer, empty
// slice) sends nothing.
func (b *Builder) Query(p Param, v any) {
	n, err := toNode(v, p.JSON)
	if err != nil {
		b.fail(paramError(p.Name, "%v", err))
		return
	}
	pairs, err := queryPairs(p, n)
	if err != nil {
		b.fail(err)
		return
	}
	b.query = append(b.query, pairs...)
}

// Header sets a header parameter (simple style, the only one headers
// allow); an absent value sends nothing.
func (b *Builder) Header(p Param, v any) {
	if p.Style != StyleSimple {
		b.fail(styleError(p, "header"))
		return
	}
	n, err := toNode(v, p.JSON)
	if err != nil {
		b.fail(paramError(p.Name, "%v", err))
		return
	}
	if s, ok := headerValue(n, p.Explode); ok {
		b.headers().Set(p.Name, s)
	}
}

// Cookie adds a cookie parameter (form style, the only one cookies allow);
// an absent value sends nothing.
func (b *Builder) Cookie(p Param, v any) {
	if p.Style != StyleForm {
		b.fail(styleError(p, "cookie"))
		return
	}
	n, err := toNode(v, p.JSON)
	if err != nil {
		b.fail(paramError(p.Name, "%v", err))
		return
	}
	b.cookies = append(b.cookies, cookiePairs(p, n)...)
}

// Key sets the caller's idempotency key of a keyed operation ("" lets the
// engine make one).
func (b *Builder) Key(key string) { b.key = key }

// ErrEmptyLookupKey is wrapped by the error Build returns after LookupKey
// was given "" (the same value as idemrt.ErrEmptyLookupKey, which users
// match).
var ErrEmptyLookupKey = shared.ErrEmptyLookupKey

// LookupKey sets the key of an unsafe call whose x-lookup finds it by a
// client reference: the value of the body member named member. An empty
// key fails the build: the call would be sent under a key that no lookup
// can run with, so an answer lost would leave it unknown for good.
func (b *Builder) LookupKey(member, key string) {
	if key == "" {
		b.fail(fmt.Errorf("%w: the body member %q is the key this call's x-lookup finds it by, and it is empty; a call whose answer is lost could never be found", ErrEmptyLookupKey, member))
		return
	}
	b.key = key
}

// Body sets encoded body bytes and their content type.
func (b *Builder) Body(contentType string, body []byte, err error) {
	if err != nil {
		b.fail(err)
		return
	}
	if body == nil {
		body = []byte{}
	}
	b.body = body
	b.headers().Set("Content-Type", contentType)
}

// JSONBody encodes v as the JSON body.
func (b *Builder) JSONBody(contentType string, v any) {
	body, err := EncodeJSON(v)
	b.Body(contentType, body, err)
}

// FormBody encodes v as an application/x-www-form-urlencoded body; enc holds
// the encodings the document declares for its properties (see EncodeForm).
func (b *Builder) FormBody(v any, enc ...Encoding) {
	body, err := EncodeForm(v, enc...)
	b.Body("application/x-www-form-urlencoded", body, err)
}

// MultipartBody encodes v as a multipart/form-data body; enc holds the
// per-property encodings. File and io.Reader fields are streamed: the
// engine reads them per attempt (see File), never copied here.
// encodings the document declares for its properties (see EncodeMultipart).
func (b *Builder) MultipartBody(v any, enc ...Encoding) {
	pieces, ct, err := encodeMultipart(v, enc)
	if err == nil && len(pieces) > 1 {
		b.body, b.stream = nil, pieces
		b.headers().Set("Content-Type", ct)
		return
	}
	var body []byte
	if err == nil {
		body = pieces[0].Bytes
	}
	b.Body(ct, body, err)
}

// ReaderBody sends r as the body, streamed: the engine rewinds an
// io.Seeker for every attempt and buffers another reader up to its limit
// (see idemrt.File). A nil reader is an empty body.
func (b *Builder) ReaderBody(contentType string, r io.Reader) {
	if r == nil {
		b.Body(contentType, nil, nil)
		return
	}
	b.body, b.stream = nil, []Piece{{Reader: r}}
	b.headers().Set("Content-Type", contentType)
}

// TextBody sends s as the body.
func (b *Builder) TextBody(contentType, s string) {
	b.Body(contentType, []byte(s), nil)
}

// Build returns the request, or the first error (a rejected path value, a
// body that does not encode). Nothing was sent then; generated code hands
// the error to idemrt.BuildFailed, which names the operation and the key.
func (b *Builder) Build() (*Request, error) {
	if b.err != nil {
		return nil, b.err
	}
	// One allocation holds both the request and its URL.
	out := &builtRequest{u: *b.server}
	u := &out.u
	if err := setEscapedPath(u, b.server.EscapedPath()+b.path); err != nil {
		return nil, err
	}
	if len(b.query) > 0 {
		q := strings.Join(b.query, "&")
		if u.RawQuery != "" {
			q = u.RawQuery + "&" + q
		}
		u.RawQuery = q
	}
	if len(b.cookies) > 0 {
		b.headers().Set("Cookie", strings.Join(b.cookies, "; "))
	}
	out.req = Request{Method: b.method, URL: u, Header: b.header, Body: b.body, Key: b.key, Stream: b.stream, Server: b.server}
	return &out.req, nil
}

// Request is the prepared request Build returns and idemrt.Runner.Do sends:
// the same type as idemrt.Request (both name the one in runtime/internal/shared,
// so that neither package imports the other).
type Request = shared.Request

// builtRequest is a Request allocated together with its URL.
type builtRequest struct {
	req Request
	u   url.URL
}
