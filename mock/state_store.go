package mock

import (
	"errors"
	"sort"
	"sync"
)

// ResetPath is the admin endpoint of the stateful mode: POST empties the
// store of resources (not the ledger, not the counts).
const ResetPath = "/__idemgen/reset"

// DefaultStateLimit is how many resources a stateful mock keeps when
// Options.StateLimit is not set.
const DefaultStateLimit = 10_000

// Errors of the resource store; each becomes a problem answer.
var (
	// ErrStateFull is a create refused because the store holds
	// Options.StateLimit resources (507).
	ErrStateFull = errors.New("mock: the stateful store is full")
	// ErrResourceExists is a create whose id (chosen by the request) is
	// already taken in its collection (409).
	ErrResourceExists = errors.New("mock: a resource with this id exists")
)

// stored is one resource: its value (a JSON object) and the order of its
// creation, which lists and cursors follow.
type stored struct {
	seq   uint64
	id    string
	value map[string]any
}

// stateStore keeps the resources of every collection in memory, bounded in
// their total number. A collection is named by its concrete path
// ("/orders", "/users/7/keys"), so nested collections stay apart. Values
// go in and come out as deep copies: no caller shares a map with another.
type stateStore struct {
	mu    sync.Mutex
	limit int
	count int
	seq   uint64
	cols  map[string]map[string]*stored
}

func newStateStore(limit int) *stateStore {
	if limit <= 0 {
		limit = DefaultStateLimit
	}
	return &stateStore{limit: limit, cols: map[string]map[string]*stored{}}
}

// create stores what value makes for id, or for the first fresh id fresh
// gives (called with the next sequence numbers until it returns one not
// taken), and returns the id used.
func (st *stateStore) create(col, id string, fresh func(n uint64) string, value func(id string) map[string]any) (string, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.count >= st.limit {
		return "", ErrStateFull
	}
	items := st.cols[col]
	if items == nil {
		items = map[string]*stored{}
		st.cols[col] = items
	}
	if id != "" {
		if items[id] != nil {
			return "", ErrResourceExists
		}
	} else if id = st.freshID(items, fresh); id == "" {
		return "", errNoFreshID
	}
	st.seq++
	items[id] = &stored{seq: st.seq, id: id, value: cloneObject(value(id))}
	st.count++
	return id, nil
}

var errNoFreshID = errors.New("mock: no fresh id fits the id member's schema")

// freshID tries sequence numbers until fresh makes an id not taken; a
// bounded number of tries, since an id schema may admit only a few values.
func (st *stateStore) freshID(items map[string]*stored, fresh func(n uint64) string) string {
	for n := st.seq + 1; n <= st.seq+64; n++ {
		if id := fresh(n); id != "" && items[id] == nil {
			return id
		}
	}
	return ""
}

// get returns a copy of the resource's value.
func (st *stateStore) get(col, id string) (map[string]any, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	it := st.cols[col][id]
	if it == nil {
		return nil, false
	}
	return cloneObject(it.value), true
}

// update replaces the resource's value with what change makes of a copy of
// it, atomically; false when there is no such resource.
func (st *stateStore) update(col, id string, change func(map[string]any) map[string]any) (map[string]any, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	it := st.cols[col][id]
	if it == nil {
		return nil, false
	}
	it.value = cloneObject(change(cloneObject(it.value)))
	return cloneObject(it.value), true
}

// remove deletes the resource; false when there was none.
func (st *stateStore) remove(col, id string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.cols[col][id] == nil {
		return false
	}
	delete(st.cols[col], id)
	st.count--
	if len(st.cols[col]) == 0 {
		delete(st.cols, col)
	}
	return true
}

// list returns copies of the collection's resources in creation order.
func (st *stateStore) list(col string) []stored {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([]stored, 0, len(st.cols[col]))
	for _, it := range st.cols[col] {
		out = append(out, stored{seq: it.seq, id: it.id, value: cloneObject(it.value)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

// reset forgets every resource; the sequence goes on, so that a cursor
// from before the reset never names a new resource.
func (st *stateStore) reset() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.cols = map[string]map[string]*stored{}
	st.count = 0
}

// size is the number of resources held.
func (st *stateStore) size() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.count
}

func cloneObject(m map[string]any) map[string]any {
	out, _ := cloneJSON(m).(map[string]any)
	return out
}

// cloneJSON deep-copies a decoded JSON value.
func cloneJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = cloneJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneJSON(e)
		}
		return out
	}
	return v
}
