package problem

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// ContentType is the media type of every problem answer.
const ContentType = "application/problem+json"

// Details is an RFC 9457 problem details object, as idemgen sends it.
type Details struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail,omitempty"`
}

// New is the problem of type typ answering status, titled with the
// status's text.
func New(status int, typ, detail string) Details {
	return Details{Type: typ, Title: http.StatusText(status), Status: status, Detail: detail}
}

// Encode is the problem's JSON body, the bytes Write sends.
func (d Details) Encode() []byte {
	b, _ := json.Marshal(d) // four plain fields: marshalling cannot fail
	return b
}

// Header values every problem answer shares. net/http only reads a
// response's header slices, and these have no spare capacity, so an Add by
// a wrapping middleware copies rather than writes into them.
var (
	contentTypeValue = []string{ContentType}
	noSniffValue     = []string{"nosniff"}
)

// SetHeaders sets the headers of a problem answer whose body is length
// bytes long (as strconv.Itoa writes it, in a slice of its own):
// Content-Type, Content-Length, and X-Content-Type-Options: nosniff, so
// that no browser reads the detail as anything but JSON. It allocates
// nothing, for answers made ahead (a shed 503).
func SetHeaders(h http.Header, length []string) {
	h["Content-Type"] = contentTypeValue
	h["Content-Length"] = length
	h["X-Content-Type-Options"] = noSniffValue
}

// Write answers status with the problem of type typ. detail must be text
// written for the client (what was wrong with its request), never an
// internal error's message.
func Write(w http.ResponseWriter, status int, typ, detail string) {
	WriteBody(w, status, New(status, typ, detail).Encode())
}

// WriteBody answers status with body, a problem document encoded
// elsewhere (one with members of its own, as the mock's), under the
// headers every problem answer carries (SetHeaders).
func WriteBody(w http.ResponseWriter, status int, body []byte) {
	SetHeaders(w.Header(), []string{strconv.Itoa(len(body))})
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
