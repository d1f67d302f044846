package wire

import (
	"encoding/json"
	"flag"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Recursive unions as idemgen generates them: rnode is a recursive anyOf
// whose branches both hold the next level, rone a recursive oneOf.

type rleaf struct {
	Value string `json:"value"`
}

type rbranch struct {
	Child rnode   `json:"child"`
	Note  *string `json:"note,omitempty"`
}

type rtagged struct {
	Child rnode  `json:"child"`
	Tag   string `json:"tag"`
}

type rnode struct {
	Leaf    *rleaf
	Branch  *rbranch
	Tagged  *rtagged
	Numbers []int64
	raw     json.RawMessage
}

func (u rnode) MarshalJSON() ([]byte, error) {
	return MarshalAnyOf(u.raw, u.Leaf, u.Branch, u.Tagged, u.Numbers)
}

func (u *rnode) UnmarshalJSON(data []byte) error {
	*u = rnode{}
	return DecodeAnyOf(data, &u.raw, Variant{Target: &u.Leaf}, Variant{Target: &u.Branch},
		Variant{Target: &u.Tagged}, Variant{Target: &u.Numbers})
}

type rnext struct {
	Next  rone    `json:"next"`
	Items []rone  `json:"items,omitempty"`
	Label *string `json:"label,omitempty"`
}

type rone struct {
	Leaf *rleaf
	Next *rnext
	Text *string
	raw  json.RawMessage
}

func (u rone) MarshalJSON() ([]byte, error) {
	return MarshalUnion(u.raw, u.Leaf, u.Next, u.Text)
}

func (u *rone) UnmarshalJSON(data []byte) error {
	*u = rone{}
	return DecodeUnion(data, &u.raw, &u.Leaf, &u.Next, &u.Text)
}

// FuzzDecodeRecursiveUnions decodes anything into recursive unions through
// encoding/json (which hands UnmarshalJSON only valid JSON, the decoders'
// precondition): no panic, success only for valid JSON, and a value that
// decodes encodes to JSON that decodes to the same value.
func FuzzDecodeRecursiveUnions(f *testing.F) {
	deep := func(member string, n int, leaf, rest string) string {
		return strings.Repeat(`{"`+member+`":`, n) + leaf + strings.Repeat(rest+"}", n)
	}
	for _, s := range []string{
		deep("child", 24, `{"value":"v"}`, `,"tag":"t"`),
		deep("child", 24, `[{"value":5}]`, ``),
		deep("child", 130, `1`, ``),
		deep("next", 24, `{"value":"v"}`, `,"x":1`),
		deep("next", 8, `"text"`, `,"items":[{"value":"a"},"b",{"next":null}]`),
		`{"child":{"value":"v"},"CHILD":{"child":[1,2]},"tag":"t"}`,
		`[1,2,3]`, `null`, `{"value":"a","value":"b"}`, `{"next":{"value":1}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer failSlow(t, startCPU(), data)
		roundTrip[rnode](t, data)
		roundTrip[rone](t, data)
	})
}

// roundTrip decodes data into a T and, when that succeeds, requires valid
// input and that the value's encoding decodes to an equal encoding.
func roundTrip[T any](t *testing.T, data []byte) {
	t.Helper()
	var v T
	if json.Unmarshal(data, &v) != nil {
		return
	}
	if !json.Valid(data) {
		t.Fatalf("accepted invalid JSON %q", data)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encoding %q: %v", data, err)
	}
	var again T
	if err := json.Unmarshal(b, &again); err != nil {
		t.Fatalf("decoding the encoding %.200s of %.200q: %v", b, data, err)
	}
	if b2, _ := json.Marshal(again); string(b2) != string(b) {
		t.Fatalf("%.200q encodes to %.200s, then to %.200s", data, b, b2)
	}
}

// failSlow fails a fuzzing run (not the seeds run as tests, which assert no
// timing) whose input took over a second of its thread's CPU time (not wall
// time, which a loaded machine stretches): decoding is linear in the body,
// and the fuzzer's inputs are small.
func failSlow(t *testing.T, start time.Duration, data []byte) {
	defer runtime.UnlockOSThread()
	if f := flag.Lookup("test.fuzz"); f == nil || f.Value.String() == "" || start < 0 {
		return
	}
	if d := threadCPU() - start; d > time.Second {
		t.Fatalf("%v of CPU for %d bytes: %.200q", d, len(data), data)
	}
}

// startCPU pins the goroutine to its thread and returns the thread's CPU
// time so far, or -1 where it cannot be read.
func startCPU() time.Duration {
	runtime.LockOSThread()
	return threadCPU()
}
