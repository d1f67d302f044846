package webhook

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// rfc8032Seed is the secret key of RFC 8032's first Ed25519 test vector
// (section 7.1, TEST 1); the signatures below are made with crypto/ed25519,
// and only verified by the scheme.
const rfc8032Seed = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"

func v1aKeys(t *testing.T, seedHex string) (ed25519.PrivateKey, string) {
	t.Helper()
	seed, err := hex.DecodeString(seedHex)
	if err != nil {
		t.Fatal(err)
	}
	priv := ed25519.NewKeyFromSeed(seed)
	return priv, "whpk_" + base64.StdEncoding.EncodeToString(priv.Public().(ed25519.PublicKey))
}

func v1aSign(priv ed25519.PrivateKey, id, ts string, body []byte) string {
	return "v1a," + base64.StdEncoding.EncodeToString(ed25519.Sign(priv, []byte(id+"."+ts+"."+string(body))))
}

// TestStandardWebhooksAsymmetric: a whpk_ public key verifies v1a (Ed25519)
// signatures of "id.timestamp.body"; HMAC and Ed25519 keys mix; a whsk_
// secret key is refused (a receiver holds only the public key); at most
// maxAsymmetric v1a signatures are checked.
func TestStandardWebhooksAsymmetric(t *testing.T) {
	priv, pub := v1aKeys(t, rfc8032Seed)
	other, otherPub := v1aKeys(t, strings.Repeat("11", 32))
	id, ts, body := "msg_1", "1700000000", []byte(`{"type":"invoice.paid"}`)
	now := time.Unix(1700000000, 0)
	check := func(keys []string, sig string) error {
		t.Helper()
		s, err := standardKeys(keys)
		if err != nil {
			t.Fatal(err)
		}
		h := http.Header{}
		h.Set("webhook-id", id)
		h.Set("webhook-timestamp", ts)
		h.Set("webhook-signature", sig)
		got, err := s.verify(h, body, now, 5*time.Minute)
		if err == nil && got != id {
			t.Errorf("id %q", got)
		}
		return err
	}
	good := v1aSign(priv, id, ts, body)
	if err := check([]string{pub}, good); err != nil {
		t.Errorf("a valid v1a signature: %v", err)
	}
	if err := check([]string{otherPub}, good); !errors.Is(err, ErrSignature) {
		t.Errorf("signed by another key: %v, want ErrSignature", err)
	}
	if err := check([]string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", pub}, "v1,AAAA "+good); err != nil {
		t.Errorf("v1a beside a wrong v1, HMAC and Ed25519 keys mixed: %v", err)
	}
	if err := check([]string{pub}, v1aSign(priv, id, ts, []byte(`{"type":"invoice.void"}`))); !errors.Is(err, ErrSignature) {
		t.Errorf("another body's signature: %v", err)
	}
	bad := strings.Repeat(v1aSign(other, id, ts, body)+" ", maxAsymmetric)
	if err := check([]string{pub}, bad+good); !errors.Is(err, ErrSignature) {
		t.Errorf("a valid signature after %d others was checked: %v", maxAsymmetric, err)
	}
	if err := check([]string{pub}, strings.Repeat(v1aSign(other, id, ts, body)+" ", maxAsymmetric-1)+good); err != nil {
		t.Errorf("a valid signature among %d: %v", maxAsymmetric, err)
	}
	secret := "whsk_" + base64.StdEncoding.EncodeToString(priv)
	for _, k := range []string{secret, "whpk_" + base64.StdEncoding.EncodeToString([]byte("short"))} {
		if _, err := standardKeys([]string{k}); !errors.Is(err, ErrConfig) {
			t.Errorf("key %.12s...: %v, want ErrConfig", k, err)
		}
	}
}
