package ledger

import (
	"sync"
	"time"
)

// A completed key's answer never changes until its TTL ends, so a process
// may keep it and answer repeats without reading the store: a replay is
// then a map lookup and a copy. The cache holds only completed rows read
// from the store, only small ones, and only until shortly before their
// expiry, so that a key purged and reused by another process (whose clock
// may run ahead) is read afresh.

const (
	// defaultReplayCache is Config.ReplayCache's default: completed rows.
	defaultReplayCache = 1024
	// replayCacheMaxBytes bounds one cached row (body and headers): the
	// cache holds at most ReplayCache times this many bytes of answers.
	replayCacheMaxBytes = 16 << 10
	// replayCacheMargin ends a cached row this long before its expiry.
	replayCacheMargin = time.Minute
)

// replayCache is a bounded map of completed records, evicted in insertion
// order: repeats of a key come soon after its first execution, so the
// oldest entry is the one least likely to be asked for again.
type replayCache struct {
	mu    sync.Mutex
	max   int
	rows  map[ID]Record
	order []ID // ring of the keys in rows, oldest at next
	next  int
}

func newReplayCache(size int) *replayCache {
	if size <= 0 {
		return nil
	}
	return &replayCache{max: size, rows: make(map[ID]Record, size)}
}

// get returns the cached completed row of id while it is valid at now.
func (c *replayCache) get(id ID, now time.Time) (Record, bool) {
	if c == nil {
		return Record{}, false
	}
	c.mu.Lock()
	rec, ok := c.rows[id]
	c.mu.Unlock()
	if !ok || !now.Before(rec.ExpiresAt.Add(-replayCacheMargin)) {
		return Record{}, false
	}
	return rec, true
}

// put keeps rec if it is a completed row small enough to cache.
func (c *replayCache) put(rec Record) {
	if c == nil || rec.State != StateCompleted || size(rec.Response) > replayCacheMaxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.rows[rec.ID]; ok {
		c.rows[rec.ID] = rec
		return
	}
	rec.ID = rec.ID.detached()
	if len(c.order) < c.max {
		c.order = append(c.order, rec.ID)
	} else {
		delete(c.rows, c.order[c.next])
		c.order[c.next] = rec.ID
		c.next = (c.next + 1) % c.max
	}
	c.rows[rec.ID] = rec
}
