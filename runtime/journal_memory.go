package runtime

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// MemoryJournal is a Journal kept in memory, for tests: it dies with the
// process, which is exactly the failure a journal exists for. Use the SQL
// journals beside the ledger's store drivers in production.
type MemoryJournal struct {
	mu      sync.Mutex
	entries map[string]*memoryEntry
	order   []string
}

// memoryEntry is one entry and what happened to it.
type memoryEntry struct {
	e        JournalEntry
	attempts []Attempt
	resolved bool
}

var _ JournalHolder = (*MemoryJournal)(nil)

// NewMemoryJournal returns an empty MemoryJournal.
func NewMemoryJournal() *MemoryJournal {
	return &MemoryJournal{entries: make(map[string]*memoryEntry)}
}

// Record implements Journal: it keeps a copy of e.
func (m *MemoryJournal) Record(_ context.Context, e *JournalEntry) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.entries[e.ID]; ok {
		return fmt.Errorf("idemrt: journal entry %s recorded twice", e.ID)
	}
	c := *e
	c.Header, c.Body = e.Header.Clone(), slices.Clone(e.Body)
	m.entries[e.ID] = &memoryEntry{e: c}
	m.order = append(m.order, e.ID)
	return nil
}

// Attempted implements Journal.
func (m *MemoryJournal) Attempted(_ context.Context, id string, a Attempt) error {
	return m.update(id, a, false)
}

// Resolve implements Journal.
func (m *MemoryJournal) Resolve(_ context.Context, id string, a Attempt) error {
	return m.update(id, a, true)
}

func (m *MemoryJournal) update(id string, a Attempt, resolve bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	me, ok := m.entries[id]
	if !ok {
		return fmt.Errorf("idemrt: no journal entry %s", id)
	}
	me.attempts = append(me.attempts, a)
	me.resolved = me.resolved || resolve
	return nil
}

// Hold implements JournalHolder: it sets entry id's HeldUntil, unless the
// entry is resolved.
func (m *MemoryJournal) Hold(_ context.Context, id string, until time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	me, ok := m.entries[id]
	if !ok {
		return fmt.Errorf("idemrt: no journal entry %s", id)
	}
	if !me.resolved {
		me.e.HeldUntil = until
	}
	return nil
}

// Entries returns copies of the entries in the order they were recorded.
func (m *MemoryJournal) Entries() []JournalEntry {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]JournalEntry, 0, len(m.order))
	for _, id := range m.order {
		out = append(out, m.entries[id].e)
	}
	return out
}

// Unresolved returns the entries not yet resolved, in recording order.
func (m *MemoryJournal) Unresolved() []JournalEntry {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []JournalEntry
	for _, id := range m.order {
		if me := m.entries[id]; !me.resolved {
			out = append(out, me.e)
		}
	}
	return out
}

// Attempts returns the attempt records stored for entry id, and whether it
// is resolved.
func (m *MemoryJournal) Attempts(id string) ([]Attempt, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	me, ok := m.entries[id]
	if !ok {
		return nil, false
	}
	return slices.Clone(me.attempts), me.resolved
}
