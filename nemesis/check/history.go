package check

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"sync"
)

// Record types of a client's history file.
const (
	// RecInvoke is written before an intent's call.
	RecInvoke = "invoke"
	// RecOK, RecFailed and RecUnknown are how the call ended, as the
	// client saw it: success, a definite refusal, an unknown outcome.
	RecOK      = "ok"
	RecFailed  = "failed"
	RecUnknown = "unknown"
	// RecSettled is the reconciler settling a journal entry.
	RecSettled = "settled"
)

// Record is one line of a client's history: what one intent did.
type Record struct {
	Type   string `json:"t"`
	Client string `json:"client"`
	Op     string `json:"op"`
	// Ref is the intent's business reference, which is also its key.
	Ref   string `json:"ref"`
	Order string `json:"order,omitempty"`
	// ID is the resource the answer named.
	ID     string `json:"id,omitempty"`
	Status int    `json:"status,omitempty"`
	// Kind is the reconciler's outcome (executed, not-executed,
	// needs-person); Why its reason or the call's error.
	Kind   string `json:"kind,omitempty"`
	Why    string `json:"why,omitempty"`
	Micros int64  `json:"us,omitempty"`
}

// HistoryWriter appends records to a history file, one write per line, so
// a process killed with SIGKILL leaves only whole lines behind.
type HistoryWriter struct {
	mu sync.Mutex
	f  *os.File
}

// OpenHistoryWriter opens path for appending.
func OpenHistoryWriter(path string) (*HistoryWriter, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	return &HistoryWriter{f: f}, nil
}

// Write appends r; a failure to write is fatal to the history's worth, so
// it panics rather than leave a hole the checker cannot see.
func (w *HistoryWriter) Write(r Record) {
	b, err := json.Marshal(r)
	if err != nil {
		panic(err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.f.Write(append(b, '\n')); err != nil {
		panic(err)
	}
}

// Close closes the file.
func (w *HistoryWriter) Close() error { return w.f.Close() }

// ReadHistory reads the records of one history file. A torn last line
// (the writer killed mid-write) is skipped.
func ReadHistory(path string) ([]Record, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readRecords(f)
}

func readRecords(r io.Reader) ([]Record, error) {
	var out []Record
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var rec Record
		if json.Unmarshal(sc.Bytes(), &rec) == nil {
			out = append(out, rec)
		}
	}
	return out, sc.Err()
}
