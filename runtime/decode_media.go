package runtime

import (
	"github.com/idemgen/idemgen/runtime/internal/shared"

	"errors"
	"fmt"
	"mime"
	"net/http"
	"path"
	"strings"
)

// ErrUnexpectedContentType is wrapped by the error of a success response
// whose Content-Type the operation does not declare, when the operation
// declares several kinds of media for that status and so needs the type to
// know how to decode the body.
var ErrUnexpectedContentType = errors.New("response Content-Type not declared by the operation")

// Media says where a success body goes by the response's Content-Type, for
// a status that declares media types of several kinds (JSON, text, bytes).
// A nil target means no media type of that kind is declared.
type Media struct {
	// JSON points at the model an application/json (or +json) body decodes
	// into.
	JSON any
	// Text receives a text/* body.
	Text *string
	// Bytes receives a body of any other declared type.
	Bytes *[]byte
	// Types are the declared media types, lower case without parameters;
	// Bytes takes the ones that are neither JSON nor text, wildcards
	// ("image/*", "*/*") included.
	Types []string
}

// DecodeMedia decodes a success response by its Content-Type and returns
// that media type: JSON into m.JSON, text/* into m.Text, a declared other
// type into m.Bytes. A response without a Content-Type goes to the first
// declared kind in that order. Any other type is an error wrapping
// ErrUnexpectedContentType that names the status, the type received and the
// types declared. The body is always closed.
func DecodeMedia(resp *http.Response, m Media) (string, error) {
	mt := mediaType(resp.Header.Get("Content-Type"))
	switch {
	case m.JSON != nil && (mt == "" || shared.IsJSON(mt)):
		return mt, DecodeJSON(resp, m.JSON)
	case m.Text != nil && (mt == "" || strings.HasPrefix(mt, "text/")):
		s, err := DecodeText(resp)
		*m.Text = s
		return mt, err
	case m.Bytes != nil && (mt == "" || m.matchesOther(mt)):
		b, err := DecodeBytes(resp)
		*m.Bytes = b
		return mt, err
	}
	// The error first: it ends the call, which Discard would end as taken.
	err := decodeError(resp, fmt.Errorf("%w: the %d response is %q; declared: %s", ErrUnexpectedContentType,
		resp.StatusCode, mt, strings.Join(m.Types, ", ")))
	Discard(resp)
	return mt, err
}

// mediaType is a Content-Type's media type, lower case, without parameters.
func mediaType(contentType string) string {
	if contentType == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		// A malformed header still names its type before any ';'.
		mt, _, _ = strings.Cut(contentType, ";")
	}
	return strings.ToLower(strings.TrimSpace(mt))
}

// matchesOther reports whether mt matches a declared type that is neither
// JSON nor text, wildcards included.
func (m Media) matchesOther(mt string) bool {
	for _, t := range m.Types {
		if shared.IsJSON(t) || strings.HasPrefix(t, "text/") {
			continue
		}
		if ok, _ := path.Match(t, mt); ok || t == "*/*" {
			return true
		}
	}
	return false
}
