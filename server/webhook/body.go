package webhook

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/runtime/problem"
	"github.com/idemgen/idemgen/runtime/wire"
)

func isErr(err, target error) bool { return errors.Is(err, target) }

// readBody reads the raw body, bounded in size and reading time, before
// anything is verified or decoded; ok is false once it has answered.
func (rc *Receiver) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if ct := r.Header.Get("Content-Type"); ct != "" && !isJSONMedia(ct) && !rc.takesForm(ct) {
		problem.Write(w, http.StatusUnsupportedMediaType, problem.UnsupportedMedia, "a delivery's body must be JSON")
		return nil, false
	}
	// A real-time deadline: it bounds a sender that trickles its body.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(rc.cfg.readTimeout))
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, rc.cfg.maxBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		problem.Write(w, http.StatusRequestEntityTooLarge, problem.BodyTooLarge, fmt.Sprintf("the body is larger than %d bytes", rc.cfg.maxBody))
		return nil, false
	case errors.Is(err, os.ErrDeadlineExceeded):
		// As the server's own routes answer a body that does not arrive in
		// time: the sender may send it again.
		problem.Write(w, http.StatusRequestTimeout, problem.BodyTimeout,
			fmt.Sprintf("the body did not arrive within %v", rc.cfg.readTimeout))
		return nil, false
	case err != nil:
		problem.Write(w, http.StatusBadRequest, problem.WebhookPayload, "the body could not be read")
		return nil, false
	case len(bytes.TrimSpace(b)) == 0:
		problem.Write(w, http.StatusBadRequest, problem.WebhookPayload, "the delivery has no body")
		return nil, false
	}
	return b, true
}

// takesForm reports whether a delivery of media type ct is GitHub's form
// encoding (payload=<JSON>), which only a GitHub receiver accepts.
func (rc *Receiver) takesForm(ct string) bool {
	_, github := rc.cfg.scheme.(githubScheme)
	return github && isFormMedia(ct)
}

func isFormMedia(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/x-www-form-urlencoded"
}

// formPayload is the JSON of a form-encoded delivery: its one payload
// field. The signature covers the form as sent, so it is read only after
// the signature is verified.
func formPayload(body []byte) ([]byte, error) {
	values, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, errors.New("the form body does not parse")
	}
	p := values["payload"]
	if len(p) != 1 || len(values) != 1 {
		return nil, errors.New("a form delivery carries exactly one field, payload")
	}
	return []byte(p[0]), nil
}

func isJSONMedia(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// envelope holds the members routing and dedupe read from a payload
// object; both are "" when absent or not strings.
type envelope struct {
	Type   string
	ID     string
	Action string
}

// readEnvelope reads type, id and action from a payload object through the
// runtime's codec (so its depth bound applies); anything else yields an
// empty envelope and the payload's own decode reports what is wrong.
func readEnvelope(body []byte) envelope {
	var raw struct {
		Type   json.RawMessage `json:"type"`
		ID     json.RawMessage `json:"id"`
		Action json.RawMessage `json:"action"`
	}
	if wire.UnmarshalDeclared(body, &raw) != nil {
		return envelope{}
	}
	var env envelope
	_ = json.Unmarshal(raw.Type, &env.Type)
	_ = json.Unmarshal(raw.ID, &env.ID)
	_ = json.Unmarshal(raw.Action, &env.Action)
	return env
}

// run executes call once per delivery (through the ledger: its id, and
// for GitHub its signed body too) or every time (WithoutDedupe),
// and answers.
func (rc *Receiver) run(w http.ResponseWriter, r *http.Request, id string, signed []byte, call func(context.Context) error) {
	if rc.cfg.ledger == nil {
		if err := runHandler(r.Context(), call); err != nil {
			rc.fail(w, r, err, http.StatusInternalServerError, problem.Internal)
			return
		}
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if id == "" {
		problem.Write(w, http.StatusBadRequest, problem.WebhookHeaders, "the delivery carries no delivery id to deduplicate it by")
		return
	}
	done, err := rc.cfg.ledger.DeliverAny(r.Context(), rc.identities(id, signed), call)
	switch {
	case errors.Is(err, ledger.ErrDeliveryID):
		problem.Write(w, http.StatusBadRequest, problem.WebhookHeaders, "the delivery id is empty, longer than 255 bytes or not UTF-8 text")
	case errors.Is(err, ledger.ErrDeliveryStore):
		w.Header().Set("Retry-After", "1")
		rc.fail(w, r, err, http.StatusServiceUnavailable, problem.StoreUnavailable)
	case err != nil:
		rc.fail(w, r, err, http.StatusInternalServerError, problem.Internal)
	case done == ledger.InFlight:
		w.Header().Set("Retry-After", "1")
		problem.Write(w, http.StatusConflict, problem.InProgress, "this delivery is being applied; deliver it again later")
	case done == ledger.Duplicate:
		w.Header().Set("Idempotent-Replayed", "true")
		w.WriteHeader(http.StatusNoContent)
	default:
		w.WriteHeader(http.StatusNoContent)
	}
}

// githubBody is the ledger operation of a GitHub delivery's body hash.
const githubBody = "github-body"

// identities are the ledger rows of one delivery, under the receiver's
// scope: its delivery id under the scheme's name and, for GitHub, whose
// delivery id is not signed, "sha256:<hex>" of the signed bytes as sent
// (the form, for a form delivery) under "github-body", so that a captured
// body resent with a new X-GitHub-Delivery is the same delivery.
func (rc *Receiver) identities(id string, signed []byte) []ledger.ID {
	scheme := "unverified"
	if rc.cfg.scheme != nil {
		scheme = rc.cfg.scheme.name()
	}
	ids := []ledger.ID{{Caller: rc.caller, Operation: scheme, Key: id}}
	if _, github := rc.cfg.scheme.(githubScheme); github {
		sum := sha256.Sum256(signed)
		ids = append(ids, ledger.ID{Caller: rc.caller, Operation: githubBody, Key: "sha256:" + hex.EncodeToString(sum[:])})
	}
	return ids
}

// fail answers a 5xx without the error's text (the sender retries), and
// hands the error to WithOnError.
func (rc *Receiver) fail(w http.ResponseWriter, r *http.Request, err error, status int, typ string) {
	if rc.cfg.onError != nil {
		rc.cfg.onError(r, err)
	}
	problem.Write(w, status, typ, "the delivery was not applied; deliver it again")
}

// runHandler calls call and turns a panic into a *ledger.PanicError, the
// server side's one type for it (the ledger's deliveries report the same).
func runHandler(ctx context.Context, call func(context.Context) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &ledger.PanicError{Value: p, Stack: debug.Stack()}
		}
	}()
	return call(ctx)
}
