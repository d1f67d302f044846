package runtime

import (
	"bytes"
	"io"
	"net/http"
	"time"

	"github.com/idemgen/idemgen/runtime/internal/jsoncodec"
	"github.com/idemgen/idemgen/runtime/problem"
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
	// Recognised by name (problem.Is), as the ledger and servers following
	// draft-ietf-httpapi-idempotency-key-header's examples send them.
	switch kind := problemType(resp, timeout); {
	case kind == "":
		return keyUnsaid
	case problem.Is(kind, problem.KeyReused):
		return keyReused
	case problem.Is(kind, problem.InProgress):
		return keyInProgress
	}
	return keyBusiness
}

// problemType is a problem+json answer's type URI ("" for any other
// answer, or a problem without a type). The body read is
// put back in front of the rest, so the caller or the error still gets all
// of it.
func problemType(resp *http.Response, timeout time.Duration) string {
	if resp.Body == nil || mediaType(resp.Header.Get("Content-Type")) != problem.ContentType {
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
	return doc.Type
}

// peekedBody is a response body whose first bytes were read ahead.
type peekedBody struct {
	io.Reader
	body io.ReadCloser
}

// Close closes the original body.
func (p *peekedBody) Close() error { return p.body.Close() }
