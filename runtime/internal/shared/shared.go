// Package shared holds what the engine (package runtime, imported as idemrt)
// and the codec (package runtime/wire) both name, so that neither imports the
// other: the prepared Request that wire.Builder builds and Runner.Do sends,
// and the sentinel errors of the codec that users match through idemrt.
package shared

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
)

// Request is a prepared request; the engine builds a fresh *http.Request per
// attempt from it.
type Request struct {
	Method string
	// URL is absolute.
	URL *url.URL
	// Header may be nil; Content-Type is already set when there is a body.
	// The engine adds the key header and call headers to it (it is the
	// caller's per-call map), so do not share one Header between concurrent
	// calls.
	Header http.Header
	// Body is nil for no body. Every attempt sends these same bytes.
	Body []byte
	// Key is the idempotency key of the call. "" makes the engine generate
	// one with NewKey. Keyed operations send it in their key header; every
	// call's errors and attempt records carry it (KeyOf).
	Key string
	// Stream, when not nil, is the body instead of Body: fixed bytes and
	// caller readers in order, assembled afresh for every attempt.
	Stream []Piece
	// Server is the server URL the URL was built on (WithBaseURL swaps it).
	Server *url.URL
}

// Piece is one part of a streamed body: Bytes, or Reader when it is set
// (a caller's content, rewound per attempt when it is an io.Seeker).
type Piece struct {
	Bytes  []byte
	Reader io.Reader
}

// File is a binary multipart file part: its file name, its Content-Type
// ("" for the part's declared type, else application/octet-stream) and its
// content. Content that is an io.ReadSeeker is rewound for every attempt;
// another io.Reader is buffered up to the client's limit so it can be
// resent, and makes the call single-attempt above it.
type File struct {
	Name        string
	ContentType string
	Content     io.Reader
}

// ErrInvalidParam is wrapped by every error about a parameter value.
var ErrInvalidParam = errors.New("invalid parameter value")

// ErrEmptyLookupKey is wrapped by the error of an unsafe call whose key,
// the client reference its x-lookup finds it by, is empty, and of a lookup
// for the key "".
var ErrEmptyLookupKey = errors.New("empty lookup key")

// ErrNoVariant is returned when no variant of a union decodes the data.
var ErrNoVariant = errors.New("no union variant matches")

// ErrTooDeep is returned when a JSON document nests objects and arrays
// deeper than MaxDepth.
var ErrTooDeep = errors.New("JSON nested too deep")

// MaxDepth is how deep the runtime's decoders let objects and arrays nest.
const MaxDepth = 128

// IsJSON reports whether a media type is JSON: application/json or any
// type with a +json suffix. Parameters (charset) are ignored.
func IsJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(contentType))
	}
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// Nullish is what the codec asks of a member with three states
// (idemrt.Nullable, which satisfies it without either package naming the
// other): whether it is present and whether it is an explicit null. Form
// and multipart bodies send an explicit null as an empty value ("note=",
// an empty part), the form convention for clearing a field.
type Nullish interface {
	IsSet() bool
	IsNull() bool
}
