package runtime

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/idemgen/idemgen/runtime/internal/jsoncodec"
)

// keyAnswer is what a keyed operation's 409 or 422 says about its key.
type keyAnswer uint8

const (
	// keyUnsaid: the answer names no problem type, so its status decides
	// (409 in progress, 422 key reused), as the idempotency-key draft has it.
	keyUnsaid keyAnswer = iota
	// keyBusiness: the operation's own answer: the key is the engine's and
	// this is its first send, or the server sent a problem of another type.
	keyBusiness
	// keyReused and keyInProgress: the server's problem type says so.
	keyReused
	keyInProgress
)

// The problem types (RFC 9457) that name the idempotency layer's refusals:
// the last path segment of the type URI, as the ledger and servers following
// draft-ietf-httpapi-idempotency-key-header's examples send them.
const (
	problemKeyReused  = "idempotency-key-reused"
	problemInProgress = "request-in-progress"
	// problemOutcomeUnknown is the answer of a server that cannot tell
	// whether it executed the request (the ledger's, when the connection
	// of its own COMMIT died): the attempt's outcome is unknown, whatever
	// its status says.
	problemOutcomeUnknown = "outcome-unknown"
)

// maxProblemPeek bounds the problem document read to find its type: the
// refusals it looks for are a few hundred bytes.
const maxProblemPeek = 8 << 10

// readKeyAnswer reads what a keyed operation's 409 or 422 says about its
// key. fresh marks the first send of a key the engine made, which no
// earlier request carried. Otherwise a problem+json body's type decides:
// after a shed 503, the key's first execution may answer the operation's
// own 422, which is not a reused key. The body read is put back in front
// of the rest, so the caller or the error still gets all of it.
func readKeyAnswer(resp *http.Response, fresh bool, timeout time.Duration) keyAnswer {
	if fresh {
		return keyBusiness
	}
	switch kind := problemKind(resp, timeout); kind {
	case "":
		return keyUnsaid
	case problemKeyReused:
		return keyReused
	case problemInProgress:
		return keyInProgress
	}
	return keyBusiness
}

// problemKind is the last path segment of a problem+json answer's type
// ("" for any other answer, or a problem without a type). The body read is
// put back in front of the rest, so the caller or the error still gets all
// of it.
func problemKind(resp *http.Response, timeout time.Duration) string {
	if resp.Body == nil || mediaType(resp.Header.Get("Content-Type")) != "application/problem+json" {
		return ""
	}
	var peeked []byte
	bounded(resp.Body, timeout, func() { peeked, _ = readAtMostN(resp.Body, maxProblemPeek, resp.ContentLength) })
	resp.Body = &peekedBody{Reader: io.MultiReader(bytes.NewReader(peeked), resp.Body), body: resp.Body}
	var doc struct {
		Type string `json:"type"`
	}
	if jsoncodec.Unmarshal(peeked, &doc) != nil {
		return ""
	}
	return doc.Type[strings.LastIndexByte(doc.Type, '/')+1:]
}

// peekedBody is a response body whose first bytes were read ahead.
type peekedBody struct {
	io.Reader
	body io.ReadCloser
}

// Close closes the original body.
func (p *peekedBody) Close() error { return p.body.Close() }
