package webhook

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/idemgen/idemgen/ledger"
)

// Option configures a webhook receiver (NewReceiver's options).
type Option func(*config)

// Errors of NewReceiver: a receiver that would accept forged or
// duplicated deliveries does not start unless its options say so.
var (
	// ErrNoVerification: no signature option and no
	// WithoutVerification.
	ErrNoVerification = errors.New("webhook: the webhook receiver verifies no signature: pass WithStandardWebhooks, WithStripeSignature or WithGitHubSignature, or WithoutVerification")
	// ErrNoLedger: no WithLedger and no WithoutDedupe.
	ErrNoLedger = errors.New("webhook: the webhook receiver has no ledger to deduplicate deliveries: pass WithLedger, or WithoutDedupe")
	// ErrConfig wraps every other invalid option: a secret that is
	// empty or not decodable, two signature schemes, a route declared twice.
	ErrConfig = errors.New("webhook: invalid webhook receiver configuration")
)

type config struct {
	scheme      scheme
	schemes     int
	noVerify    bool
	ledger      *ledger.Ledger
	endpoint    string
	noDedupe    bool
	tolerance   time.Duration
	now         func() time.Time
	maxBody     int64
	readTimeout time.Duration
	roots       []string
	onError     func(*http.Request, error)
	err         error
}

func (c *config) setScheme(s scheme, err error) {
	c.schemes++
	c.scheme = s
	if err != nil && c.err == nil {
		c.err = err
	}
}

// WithStandardWebhooks verifies deliveries signed as Standard Webhooks
// (webhook-id, webhook-timestamp, webhook-signature: HMAC-SHA256 of
// "id.timestamp.body"), the scheme of OpenAI and Svix. Each secret is
// "whsec_" and the base64 key (symmetric signatures, v1) or "whpk_" and the
// sender's base64 Ed25519 public key (asymmetric signatures, v1a); pass
// several while a key rotates: a delivery signed with any of them is
// accepted. The delivery id is webhook-id.
func WithStandardWebhooks(secrets ...string) Option {
	return func(c *config) {
		c.setScheme(standardKeys(secrets))
	}
}

// WithStripeSignature verifies Stripe's Stripe-Signature header
// (t=timestamp, v1=hex HMAC-SHA256 of "t.body"; every v1 is tried, the
// other schemes ignored). Each secret is the endpoint's whole signing
// secret ("whsec_..."); pass the old and the new one while Stripe rolls it.
// The delivery id is the event's id member.
func WithStripeSignature(secrets ...string) Option {
	return func(c *config) {
		keys, err := rawKeys("Stripe", secrets)
		c.setScheme(stripeScheme{keys: keys}, err)
	}
}

// WithGitHubSignature verifies GitHub's X-Hub-Signature-256 (sha256=hex
// HMAC-SHA256 of the body). GitHub signs no timestamp, and its delivery id
// (X-GitHub-Delivery) is not signed, so a captured delivery verifies
// forever under any id: its replay protection is the dedupe, which records
// both the delivery id and the SHA-256 of the signed body, for as long as
// the ledger keeps them (its TTL).
func WithGitHubSignature(secrets ...string) Option {
	return func(c *config) {
		keys, err := rawKeys("GitHub", secrets)
		c.setScheme(githubScheme{keys: keys}, err)
	}
}

// WithLedger deduplicates deliveries in l's store: the delivery id
// is recorded in the transaction the handler writes in (ledger.Tx(ctx)),
// so a delivery's effects and its record commit together. l's TTL is how
// long an id is remembered: it must outlast the sender's retry window
// (Stripe retries for three days).
func WithLedger(l *ledger.Ledger) Option {
	return func(c *config) { c.ledger = l }
}

// WithEndpoint names the endpoint this receiver is, to scope its
// dedupe: Stripe sends one event id, and Standard Webhooks and GitHub one
// delivery id, to every endpoint subscribed to the event, so two
// receivers recording deliveries in one store must not share a scope. A
// named receiver records deliveries under the caller "webhook:<name>"; an
// unnamed one under "webhook", as receivers always have, so a receiver
// that is alone on its store needs no name and keeps its recorded
// deliveries. A second receiver with the same scope (unnamed, or the same
// name) on the same store in one process does not start
// (ErrConfig wrapping ledger.ErrDeliveryScope). The name is
// non-empty UTF-8 text without NUL, at most 247 bytes.
func WithEndpoint(name string) Option {
	return func(c *config) {
		c.endpoint = name
		if name == "" && c.err == nil {
			c.err = fmt.Errorf("%w: WithEndpoint needs a name", ErrConfig)
		}
	}
}

// WithoutVerification accepts deliveries without checking a
// signature: only behind something that already authenticated them.
func WithoutVerification() Option {
	return func(c *config) { c.noVerify = true }
}

// WithoutDedupe runs the handler for every delivery, repeats
// included: the handler must be idempotent itself.
func WithoutDedupe() Option {
	return func(c *config) { c.noDedupe = true }
}

// WithTolerance sets how far a signed timestamp may be from the
// receiver's clock, either way (default 5 minutes): a captured delivery
// replayed later than that is refused.
func WithTolerance(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.tolerance = d
		}
	}
}

// WithClock sets the clock signed timestamps are checked against;
// tests inject one.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.now = now
		}
	}
}

// WithLimits bounds a delivery's body (default 1 MiB; 413 above it)
// and the time its reading may take (default 30s). Zero keeps a default.
func WithLimits(maxBody int64, readTimeout time.Duration) Option {
	return func(c *config) {
		if maxBody > 0 {
			c.maxBody = maxBody
		}
		if readTimeout > 0 {
			c.readTimeout = readTimeout
		}
	}
}

// WithRoot names the request paths that are the receiver's root,
// where a delivery is routed by X-GitHub-Event or its payload's type (a
// path ending in "/" always is).
func WithRoot(paths ...string) Option {
	return func(c *config) { c.roots = append(c.roots, paths...) }
}

// WithOnError receives the errors answered with a 5xx (a handler's,
// a store's), whose text never reaches the sender, for logging.
func WithOnError(f func(*http.Request, error)) Option {
	return func(c *config) { c.onError = f }
}

func newConfig(opts []Option) (config, error) {
	c := config{tolerance: 5 * time.Minute, now: time.Now, maxBody: 1 << 20, readTimeout: 30 * time.Second}
	for _, o := range opts {
		o(&c)
	}
	switch {
	case c.err != nil:
		return c, c.err
	case c.schemes > 1:
		return c, fmt.Errorf("%w: %d signature schemes; a receiver verifies one (mount one receiver per sender)", ErrConfig, c.schemes)
	case c.scheme == nil && !c.noVerify:
		return c, ErrNoVerification
	case c.scheme != nil && c.noVerify:
		return c, fmt.Errorf("%w: a signature scheme and WithoutVerification", ErrConfig)
	case c.ledger == nil && !c.noDedupe:
		return c, ErrNoLedger
	}
	return c, nil
}

// standardKeys decodes Standard Webhooks keys by their prefix: "whsec_"
// (or none) and a base64 HMAC key, or "whpk_" and a base64 Ed25519 public
// key. A "whsk_" secret key is refused: it signs, and a receiver only
// verifies.
func standardKeys(secrets []string) (standardScheme, error) {
	var s standardScheme
	if len(secrets) == 0 {
		return s, fmt.Errorf("%w: WithStandardWebhooks needs at least one secret", ErrConfig)
	}
	for i, secret := range secrets {
		if strings.HasPrefix(secret, "whsk_") {
			return s, fmt.Errorf("%w: Standard Webhooks key %d is a secret key (whsk_); give the receiver the public key (whpk_)", ErrConfig, i+1)
		}
		if b64, ok := strings.CutPrefix(secret, "whpk_"); ok {
			k, err := base64.StdEncoding.DecodeString(b64)
			if err != nil || len(k) != ed25519.PublicKeySize {
				return s, fmt.Errorf("%w: Standard Webhooks key %d is not whpk_ and a base64 Ed25519 public key", ErrConfig, i+1)
			}
			s.public = append(s.public, ed25519.PublicKey(k))
			continue
		}
		k, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
		if err != nil || len(k) == 0 {
			return s, fmt.Errorf("%w: Standard Webhooks secret %d is not whsec_ and a base64 key", ErrConfig, i+1)
		}
		s.keys = append(s.keys, k)
	}
	return s, nil
}

// rawKeys keeps secrets that are used as written (Stripe's, GitHub's).
func rawKeys(who string, secrets []string) ([][]byte, error) {
	if len(secrets) == 0 {
		return nil, fmt.Errorf("%w: the %s scheme needs at least one secret", ErrConfig, who)
	}
	keys := make([][]byte, 0, len(secrets))
	for i, s := range secrets {
		if s == "" {
			return nil, fmt.Errorf("%w: %s secret %d is empty", ErrConfig, who, i+1)
		}
		keys = append(keys, []byte(s))
	}
	return keys, nil
}
