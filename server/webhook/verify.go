package webhook

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Errors of signature verification, for errors.Is; the receiver answers
// the first three 401 and ErrHeaders 400.
var (
	// ErrUnsigned: the headers the scheme signs with are missing.
	ErrUnsigned = errors.New("the delivery is not signed")
	// ErrSignature: no signature matches any of the secrets.
	ErrSignature = errors.New("no signature of the delivery matches a secret")
	// ErrStale: the signed timestamp is outside the tolerance.
	ErrStale = errors.New("the delivery's signed timestamp is outside the tolerance")
	// ErrHeaders: a signature header is not in its scheme's form.
	ErrHeaders = errors.New("a signature header is malformed")
)

// maxSignatures bounds the signatures read from one header: a sender
// rotating keys sends two or three.
const maxSignatures = 16

// scheme verifies a delivery's raw body against its headers and
// returns the delivery id the scheme carries in a header ("" when the id
// is in the payload).
type scheme interface {
	name() string
	verify(h http.Header, body []byte, now time.Time, tolerance time.Duration) (id string, err error)
}

func mac(key []byte, parts ...[]byte) []byte {
	m := hmac.New(sha256.New, key)
	for _, p := range parts {
		m.Write(p)
	}
	return m.Sum(nil)
}

// anyMatch compares every candidate with the MAC of every key in constant
// time per comparison.
func anyMatch(keys, sigs [][]byte, parts ...[]byte) bool {
	for _, k := range keys {
		want := mac(k, parts...)
		for _, s := range sigs {
			if hmac.Equal(want, s) {
				return true
			}
		}
	}
	return false
}

// checkTimestamp parses unix seconds and refuses a time further than
// tolerance from now, either way.
func checkTimestamp(ts string, now time.Time, tolerance time.Duration) error {
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || sec < 0 {
		return fmt.Errorf("%w: the timestamp %q is not unix seconds", ErrHeaders, clip(ts))
	}
	at := time.Unix(sec, 0)
	if at.Before(now.Add(-tolerance)) || at.After(now.Add(tolerance)) {
		return fmt.Errorf("%w (%v)", ErrStale, tolerance)
	}
	return nil
}

// clip bounds a header value quoted in a refusal.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// standardScheme is Standard Webhooks' scheme: symmetric signatures (v1,
// HMAC-SHA256 with keys) and asymmetric ones (v1a, Ed25519 with public).
type standardScheme struct {
	keys   [][]byte
	public []ed25519.PublicKey
}

// maxAsymmetric bounds the v1a signatures checked per delivery: an Ed25519
// verification costs some 50 µs, and the header is the sender's to fill.
const maxAsymmetric = 4

func (standardScheme) name() string { return "standard-webhooks" }

func (s standardScheme) verify(h http.Header, body []byte, now time.Time, tol time.Duration) (string, error) {
	id, ts, sig := h.Get("Webhook-Id"), h.Get("Webhook-Timestamp"), h.Get("Webhook-Signature")
	if id == "" || ts == "" || sig == "" {
		return "", fmt.Errorf("%w: webhook-id, webhook-timestamp and webhook-signature are required", ErrUnsigned)
	}
	if _, err := strconv.ParseInt(ts, 10, 64); err != nil {
		return "", fmt.Errorf("%w: the timestamp %q is not unix seconds", ErrHeaders, clip(ts))
	}
	sym, asym := standardSignatures(sig)
	if !anyMatch(s.keys, sym, []byte(id), []byte("."), []byte(ts), []byte("."), body) && !s.anyVerifies(asym, id, ts, body) {
		return "", ErrSignature
	}
	return id, checkTimestamp(ts, now, tol)
}

// standardSignatures splits a webhook-signature header into its v1 and v1a
// signatures (other versions ignored), each list bounded.
func standardSignatures(header string) (sym, asym [][]byte) {
	for _, f := range strings.Fields(header) {
		v, b64, _ := strings.Cut(f, ",")
		b, err := base64.StdEncoding.DecodeString(b64)
		switch {
		case err != nil:
		case v == "v1" && len(sym) < maxSignatures:
			sym = append(sym, b)
		case v == "v1a" && len(asym) < maxAsymmetric && len(b) == ed25519.SignatureSize:
			asym = append(asym, b)
		}
	}
	return sym, asym
}

// anyVerifies reports whether one of sigs is an Ed25519 signature of
// "id.ts.body" by one of the public keys.
func (s standardScheme) anyVerifies(sigs [][]byte, id, ts string, body []byte) bool {
	if len(s.public) == 0 || len(sigs) == 0 {
		return false
	}
	msg := make([]byte, 0, len(id)+len(ts)+2+len(body))
	msg = append(append(append(append(append(msg, id...), '.'), ts...), '.'), body...)
	for _, k := range s.public {
		for _, sig := range sigs {
			if ed25519.Verify(k, msg, sig) {
				return true
			}
		}
	}
	return false
}

// stripeScheme is Stripe's Stripe-Signature scheme.
type stripeScheme struct{ keys [][]byte }

func (stripeScheme) name() string { return "stripe" }

func (s stripeScheme) verify(h http.Header, body []byte, now time.Time, tol time.Duration) (string, error) {
	header := h.Get("Stripe-Signature")
	if header == "" {
		return "", fmt.Errorf("%w: Stripe-Signature is required", ErrUnsigned)
	}
	var ts string
	var sigs [][]byte
	for _, item := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(item), "=")
		switch {
		case !ok:
			return "", fmt.Errorf("%w: Stripe-Signature item %q is not key=value", ErrHeaders, clip(item))
		case k == "t" && ts != "":
			return "", fmt.Errorf("%w: Stripe-Signature has two timestamps", ErrHeaders)
		case k == "t":
			ts = v
		case k == "v1" && len(sigs) < maxSignatures:
			// An unreadable signature is skipped, as Stripe's libraries do;
			// v0 (test mode's fake scheme) and others are ignored.
			if b, err := hex.DecodeString(v); err == nil {
				sigs = append(sigs, b)
			}
		}
	}
	if _, err := strconv.ParseInt(ts, 10, 64); err != nil {
		return "", fmt.Errorf("%w: Stripe-Signature has no t=unix seconds", ErrHeaders)
	}
	if !anyMatch(s.keys, sigs, []byte(ts), []byte("."), body) {
		return "", ErrSignature
	}
	return "", checkTimestamp(ts, now, tol)
}

// githubScheme is GitHub's X-Hub-Signature-256; it signs no timestamp.
type githubScheme struct{ keys [][]byte }

func (githubScheme) name() string { return "github" }

func (s githubScheme) verify(h http.Header, body []byte, _ time.Time, _ time.Duration) (string, error) {
	header := h.Get("X-Hub-Signature-256")
	if header == "" {
		return "", fmt.Errorf("%w: X-Hub-Signature-256 is required", ErrUnsigned)
	}
	hexSig, ok := strings.CutPrefix(header, "sha256=")
	sig, err := hex.DecodeString(hexSig)
	if !ok || err != nil {
		return "", fmt.Errorf("%w: X-Hub-Signature-256 is not sha256= and a hex digest", ErrHeaders)
	}
	if !anyMatch(s.keys, [][]byte{sig}, body) {
		return "", ErrSignature
	}
	return h.Get("X-GitHub-Delivery"), nil
}
