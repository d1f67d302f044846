package idemsrv

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

// WebhookOption configures a webhook receiver (NewWebhookReceiver's options).
type WebhookOption func(*webhookConfig)

// Errors of NewWebhookReceiver: a receiver that would accept forged or
// duplicated deliveries does not start unless its options say so.
var (
	// ErrWebhookNoVerification: no signature option and no
	// WithoutWebhookVerification.
	ErrWebhookNoVerification = errors.New("idemsrv: the webhook receiver verifies no signature: pass WithStandardWebhooks, WithStripeSignature or WithGitHubSignature, or WithoutWebhookVerification")
	// ErrWebhookNoLedger: no WithWebhookLedger and no WithoutWebhookDedupe.
	ErrWebhookNoLedger = errors.New("idemsrv: the webhook receiver has no ledger to deduplicate deliveries: pass WithWebhookLedger, or WithoutWebhookDedupe")
	// ErrWebhookConfig wraps every other invalid option: a secret that is
	// empty or not decodable, two signature schemes, a route declared twice.
	ErrWebhookConfig = errors.New("idemsrv: invalid webhook receiver configuration")
)

type webhookConfig struct {
	scheme      webhookScheme
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

func (c *webhookConfig) setScheme(s webhookScheme, err error) {
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
func WithStandardWebhooks(secrets ...string) WebhookOption {
	return func(c *webhookConfig) {
		c.setScheme(standardKeys(secrets))
	}
}

// WithStripeSignature verifies Stripe's Stripe-Signature header
// (t=timestamp, v1=hex HMAC-SHA256 of "t.body"; every v1 is tried, the
// other schemes ignored). Each secret is the endpoint's whole signing
// secret ("whsec_..."); pass the old and the new one while Stripe rolls it.
// The delivery id is the event's id member.
func WithStripeSignature(secrets ...string) WebhookOption {
	return func(c *webhookConfig) {
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
func WithGitHubSignature(secrets ...string) WebhookOption {
	return func(c *webhookConfig) {
		keys, err := rawKeys("GitHub", secrets)
		c.setScheme(githubScheme{keys: keys}, err)
	}
}

// WithWebhookLedger deduplicates deliveries in l's store: the delivery id
// is recorded in the transaction the handler writes in (ledger.Tx(ctx)),
// so a delivery's effects and its record commit together. l's TTL is how
// long an id is remembered: it must outlast the sender's retry window
// (Stripe retries for three days).
func WithWebhookLedger(l *ledger.Ledger) WebhookOption {
	return func(c *webhookConfig) { c.ledger = l }
}

// WithWebhookEndpoint names the endpoint this receiver is, to scope its
// dedupe: Stripe sends one event id, and Standard Webhooks and GitHub one
// delivery id, to every endpoint subscribed to the event, so two
// receivers recording deliveries in one store must not share a scope. A
// named receiver records deliveries under the caller "webhook:<name>"; an
// unnamed one under "webhook", as receivers always have, so a receiver
// that is alone on its store needs no name and keeps its recorded
// deliveries. A second receiver with the same scope (unnamed, or the same
// name) on the same store in one process does not start
// (ErrWebhookConfig wrapping ledger.ErrDeliveryScope). The name is
// non-empty UTF-8 text without NUL, at most 247 bytes.
func WithWebhookEndpoint(name string) WebhookOption {
	return func(c *webhookConfig) {
		c.endpoint = name
		if name == "" && c.err == nil {
			c.err = fmt.Errorf("%w: WithWebhookEndpoint needs a name", ErrWebhookConfig)
		}
	}
}

// WithoutWebhookVerification accepts deliveries without checking a
// signature: only behind something that already authenticated them.
func WithoutWebhookVerification() WebhookOption {
	return func(c *webhookConfig) { c.noVerify = true }
}

// WithoutWebhookDedupe runs the handler for every delivery, repeats
// included: the handler must be idempotent itself.
func WithoutWebhookDedupe() WebhookOption {
	return func(c *webhookConfig) { c.noDedupe = true }
}

// WithWebhookTolerance sets how far a signed timestamp may be from the
// receiver's clock, either way (default 5 minutes): a captured delivery
// replayed later than that is refused.
func WithWebhookTolerance(d time.Duration) WebhookOption {
	return func(c *webhookConfig) {
		if d > 0 {
			c.tolerance = d
		}
	}
}

// WithWebhookClock sets the clock signed timestamps are checked against;
// tests inject one.
func WithWebhookClock(now func() time.Time) WebhookOption {
	return func(c *webhookConfig) {
		if now != nil {
			c.now = now
		}
	}
}

// WithWebhookLimits bounds a delivery's body (default 1 MiB; 413 above it)
// and the time its reading may take (default 30s). Zero keeps a default.
func WithWebhookLimits(maxBody int64, readTimeout time.Duration) WebhookOption {
	return func(c *webhookConfig) {
		if maxBody > 0 {
			c.maxBody = maxBody
		}
		if readTimeout > 0 {
			c.readTimeout = readTimeout
		}
	}
}

// WithWebhookRoot names the request paths that are the receiver's root,
// where a delivery is routed by X-GitHub-Event or its payload's type (a
// path ending in "/" always is).
func WithWebhookRoot(paths ...string) WebhookOption {
	return func(c *webhookConfig) { c.roots = append(c.roots, paths...) }
}

// WithWebhookOnError receives the errors answered with a 5xx (a handler's,
// a store's), whose text never reaches the sender, for logging.
func WithWebhookOnError(f func(*http.Request, error)) WebhookOption {
	return func(c *webhookConfig) { c.onError = f }
}

func newWebhookConfig(opts []WebhookOption) (webhookConfig, error) {
	c := webhookConfig{tolerance: 5 * time.Minute, now: time.Now, maxBody: 1 << 20, readTimeout: 30 * time.Second}
	for _, o := range opts {
		o(&c)
	}
	switch {
	case c.err != nil:
		return c, c.err
	case c.schemes > 1:
		return c, fmt.Errorf("%w: %d signature schemes; a receiver verifies one (mount one receiver per sender)", ErrWebhookConfig, c.schemes)
	case c.scheme == nil && !c.noVerify:
		return c, ErrWebhookNoVerification
	case c.scheme != nil && c.noVerify:
		return c, fmt.Errorf("%w: a signature scheme and WithoutWebhookVerification", ErrWebhookConfig)
	case c.ledger == nil && !c.noDedupe:
		return c, ErrWebhookNoLedger
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
		return s, fmt.Errorf("%w: WithStandardWebhooks needs at least one secret", ErrWebhookConfig)
	}
	for i, secret := range secrets {
		if strings.HasPrefix(secret, "whsk_") {
			return s, fmt.Errorf("%w: Standard Webhooks key %d is a secret key (whsk_); give the receiver the public key (whpk_)", ErrWebhookConfig, i+1)
		}
		if b64, ok := strings.CutPrefix(secret, "whpk_"); ok {
			k, err := base64.StdEncoding.DecodeString(b64)
			if err != nil || len(k) != ed25519.PublicKeySize {
				return s, fmt.Errorf("%w: Standard Webhooks key %d is not whpk_ and a base64 Ed25519 public key", ErrWebhookConfig, i+1)
			}
			s.public = append(s.public, ed25519.PublicKey(k))
			continue
		}
		k, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
		if err != nil || len(k) == 0 {
			return s, fmt.Errorf("%w: Standard Webhooks secret %d is not whsec_ and a base64 key", ErrWebhookConfig, i+1)
		}
		s.keys = append(s.keys, k)
	}
	return s, nil
}

// rawKeys keeps secrets that are used as written (Stripe's, GitHub's).
func rawKeys(who string, secrets []string) ([][]byte, error) {
	if len(secrets) == 0 {
		return nil, fmt.Errorf("%w: the %s scheme needs at least one secret", ErrWebhookConfig, who)
	}
	keys := make([][]byte, 0, len(secrets))
	for i, s := range secrets {
		if s == "" {
			return nil, fmt.Errorf("%w: %s secret %d is empty", ErrWebhookConfig, who, i+1)
		}
		keys = append(keys, []byte(s))
	}
	return keys, nil
}
