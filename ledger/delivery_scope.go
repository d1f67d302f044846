package ledger

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"weak"
)

// ErrDeliveryScope is returned by ClaimDeliveryScope when a live claim
// already holds the scope on the same store: two receivers recording
// deliveries under one scope would take each other's deliveries for
// replays.
var ErrDeliveryScope = errors.New("ledger: another receiver in this process already records deliveries under this scope in this store")

// ScopeClaim is one receiver's hold on a delivery scope (the ID.Caller its
// deliveries are recorded under) in its ledger's store, for the life of
// the process. It is released by Release, or once nothing refers to it.
type ScopeClaim struct {
	// l keeps the store, whose address keys the claim, alive while the
	// claim is.
	l   *Ledger
	key scopeKey
}

// scopeKey is a scope in one store, the store named by its address.
type scopeKey struct {
	store uintptr
	scope string
}

// scopes are the live claims of the process. A claim is held weakly: a
// receiver that is dropped without Release frees its scope once collected.
var scopes struct {
	sync.Mutex
	held map[scopeKey]weak.Pointer[ScopeClaim]
}

// ClaimDeliveryScope claims scope (a non-empty UTF-8 string of at most
// MaxKeyLen bytes without NUL) for one receiver's deliveries in l's store.
// Two ledgers on one store share its scopes; two stores are told apart by
// identity only, so two stores opened on one database (or two processes
// sharing it) are not seen: that is the deployment's to keep apart. It
// returns ErrDeliveryScope while another claim on the scope is live, and
// ErrDeliveryID for a scope no store can keep.
func (l *Ledger) ClaimDeliveryScope(scope string) (*ScopeClaim, error) {
	if err := checkDeliveryID(ID{Caller: scope, Operation: "-", Key: "-"}); err != nil {
		return nil, err
	}
	k := scopeKey{store: storeAddress(l), scope: scope}
	scopes.Lock()
	defer scopes.Unlock()
	if scopes.held == nil {
		scopes.held = map[scopeKey]weak.Pointer[ScopeClaim]{}
	}
	if held, ok := scopes.held[k]; ok && held.Value() != nil {
		return nil, fmt.Errorf("%w: %q", ErrDeliveryScope, scope)
	}
	for other, held := range scopes.held {
		if held.Value() == nil {
			delete(scopes.held, other)
		}
	}
	c := &ScopeClaim{l: l, key: k}
	scopes.held[k] = weak.Make(c)
	return c, nil
}

// Release gives the scope up, so that a receiver built to replace this
// one may claim it. Releasing twice is harmless.
func (c *ScopeClaim) Release() {
	scopes.Lock()
	defer scopes.Unlock()
	if held, ok := scopes.held[c.key]; ok && held.Value() == c {
		delete(scopes.held, c.key)
	}
}

// storeAddress names l's store by its address when the store is a pointer
// to a value with a size (pointers to zero-size values may share one),
// else names l itself: scopes are then per ledger.
func storeAddress(l *Ledger) uintptr {
	v := reflect.ValueOf(l.cfg.Store)
	if v.Kind() == reflect.Pointer && !v.IsNil() && v.Type().Elem().Size() > 0 {
		return v.Pointer()
	}
	return reflect.ValueOf(l).Pointer()
}
