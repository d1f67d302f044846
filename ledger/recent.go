package ledger

import (
	"encoding/binary"
	"hash/maphash"
	"strings"
	"sync"
)

// Most keys are fresh: reading one before reserving it finds nothing, and
// on SQLite that read costs a tenth of the fresh key. Repeats come soon
// after the first attempt, to the process that served it when there is one.
// So the ledger remembers the keys it saw lately: a key among them is read
// first (a repeat, answered from a read without the writer), any other goes
// straight to the reservation, which settles a repeat itself. Being wrong
// costs only time: the store decides every outcome.
//
// Each entry also keeps its request's fingerprint under a digest of the
// inputs it was computed from (the route, method, target, content type,
// identity fields and body, byte for byte), so that a repeat sent with the
// same bytes, as retries are, skips parsing and canonicalising its body.
// The digest is 128 bits of maphash under seeds drawn per process, which a
// sender cannot aim a collision at.

// recentKeysMax bounds the entries (an entry is its ID, digest and
// fingerprint: about 200 bytes).
const recentKeysMax = 16384

// recentKeys is a bounded map of the keys seen lately, evicted in insertion
// order, as replayCache is.
type recentKeys struct {
	seeds [2]maphash.Seed
	mu    sync.Mutex
	rows  map[ID]recentKey
	order []ID // ring of the keys in rows, oldest at next
	next  int
}

// recentKey is what the ledger knows of a key it saw.
type recentKey struct {
	digest [2]uint64
	fp     string
	// running counts this process's executions of the key that reserved it
	// inside their business transaction (TxReserver), which no other
	// request can read before it commits; runningFP is their fingerprint.
	running   int
	runningFP string
}

func newRecentKeys() *recentKeys {
	return &recentKeys{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, rows: make(map[ID]recentKey)}
}

// requestDigest is the digest of a fingerprint's inputs (route is the
// route's number: routes may fingerprint the same request differently).
func (c *recentKeys) requestDigest(route uint64, method, target, contentType string, fields []string, body []byte) [2]uint64 {
	var out [2]uint64
	for i, seed := range c.seeds {
		var h maphash.Hash
		h.SetSeed(seed)
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], route)
		h.Write(n[:])
		for _, s := range [...]string{method, target, contentType} {
			writeDigestField(&h, s)
		}
		binary.BigEndian.PutUint64(n[:], uint64(len(fields)))
		h.Write(n[:])
		for _, f := range fields {
			writeDigestField(&h, f)
		}
		h.Write(body)
		out[i] = h.Sum64()
	}
	return out
}

// writeField writes s length-prefixed, so that fields cannot run together.
func writeDigestField(h *maphash.Hash, s string) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(s)))
	h.Write(n[:])
	h.WriteString(s)
}

// detached returns id with its caller and key copied: a key is a slice of
// its request's header value, which a sender can pad with a megabyte of
// spaces that TrimSpace leaves behind it, and an entry kept for minutes
// must not keep that megabyte alive.
func (id ID) detached() ID {
	return ID{Caller: strings.Clone(id.Caller), Operation: id.Operation, Key: strings.Clone(id.Key)}
}

// get returns what is known of id.
func (c *recentKeys) get(id ID) (recentKey, bool) {
	c.mu.Lock()
	k, ok := c.rows[id]
	c.mu.Unlock()
	return k, ok
}

// remember records id's latest request: its digest and fingerprint.
func (c *recentKeys) remember(id ID, digest [2]uint64, fp string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if k, ok := c.rows[id]; ok {
		k.digest, k.fp = digest, fp
		c.rows[id] = k
		return
	}
	c.insert(id.detached(), recentKey{digest: digest, fp: fp})
}

// insert adds a new entry, evicting the oldest entry that is not running
// when full (only executions holding SQLite's one writer run, so there is
// one at most); c.mu is held.
func (c *recentKeys) insert(id ID, k recentKey) {
	if len(c.order) < recentKeysMax {
		c.order = append(c.order, id)
		c.rows[id] = k
		return
	}
	for range len(c.order) {
		slot := c.next
		c.next = (c.next + 1) % len(c.order)
		if old := c.order[slot]; c.rows[old].running == 0 {
			delete(c.rows, old)
			c.order[slot] = id
			c.rows[id] = k
			return
		}
	}
}

// start marks an execution of id with fingerprint fp as running.
func (c *recentKeys) start(id ID, fp string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.rows[id]
	if !ok {
		c.insert(id.detached(), recentKey{running: 1, runningFP: fp})
		return
	}
	k.running++
	k.runningFP = fp
	c.rows[id] = k
}

// stop ends one running execution of id.
func (c *recentKeys) stop(id ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if k, ok := c.rows[id]; ok && k.running > 0 {
		k.running--
		c.rows[id] = k
	}
}
