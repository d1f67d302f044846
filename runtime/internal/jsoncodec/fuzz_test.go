package jsoncodec_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/idemgen/idemgen/runtime/internal/jsoncodec"
	"github.com/idemgen/idemgen/runtime/internal/shared"
)

// seeds are answers a server could send for the shapes above, valid and
// slightly broken.
var seeds = []string{
	`{"id":"r1","color":"red","counters":{"a":1,"b":-2},"labels":{"owner":"ann","team":"core"},` +
		`"parent":null,"payload":"text","contact":{"email":"a@b.c","phone":"1"},` +
		`"events":[{"type":"OrderPlaced","order_id":"o1","total":5},{"type":"OrderShipped","order_id":"o1","carrier":"ups","tracking":null},{"order_id":"o2"}],` +
		`"formats":{"anything":[1,{"x":null}],"big":9007199254740993,"blob":"aGVsbG8=","created_at":"2026-11-29T10:15:30.5+01:00",` +
		`"day":"2026-02-28","flag":true,"maybe_count":null,"precise":1e-7,"ratio":0.1,"small":-3,"tiny":255},"extra":{"k":[true,null,1.5]}}`,
	`{"id":"r2","color":"purple","parent":{"id":"r1","parent":{"id":"r0"}},"payload":42,"unknown":{"deep":[1,2]}}`,
	`{"ID":"case","COLOR":"blue","Counters":{},"formats":{"MAYBE_COUNT":7}}`,
	`{"id":"dup","id":"last","payload":{"order_id":"o","type":"OrderPlaced"}}`,
	`{"order":{"id":"ord_7f3a9c","customerId":"cus_1842","items":[{"sku":"SKU-1001","quantity":2,"unitPrice":1299}],` +
		`"note":"leave at the door","status":"pending","total":8847,"createdAt":"2026-11-29T10:15:30Z"}}`,
	`{"formats":{"tiny":256}}`,
	`{"formats":{"small":1.5}}`,
	`{"formats":{"day":"2026-13-01"}}`,
	`{"formats":{"created_at":"yesterday"}}`,
	`{"formats":{"blob":"not base64!"}}`,
	`{"id":"\ud83d\ude00 \u00e9 \xff"}`,
	"{\"id\":\"invalid \xff utf-8\",\"labels\":{\"k\xfe\":\"v\"}}",
	`{"id":"trailing"} x`,
	`{"id":1}`,
	`[{"id":"a"}]`,
	`null`,
	`{"labels":{"owner":1}}`,
	`{"events":[{"type":"OrderShipped","tracking":5}]}`,
	` {"counters":{"a":1e2}} `,
	`{"id":"a",}`,
}

// FuzzDecodeMatchesStd decodes the same document with the runtime's codec
// and with encoding/json into the generated shapes and into untyped values,
// and requires the same verdict, the same error type and the same value (not
// the same error text: the generated additionalProperties decoder reports
// whichever bad member a map iteration meets first, with either library). It
// also holds the library's own decoder (the fast path, before the fallback)
// to encoding/json whenever it succeeds: a fast-path success with another
// value would be a silent divergence the fallback cannot catch.
func FuzzDecodeMatchesStd(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer failSlow(t, startCPU(), data)
		compare[receipt](t, data)
		compare[[]receipt](t, data)
		compare[order](t, data)
		compare[map[string]any](t, data)
		compare[any](t, data)
	})
}

func compare[T any](t *testing.T, data []byte) {
	t.Helper()
	var want, got, fast T
	wantErr := json.Unmarshal(data, &want)
	gotErr := jsoncodec.Unmarshal(data, &got)
	if errors.Is(gotErr, shared.ErrTooDeep) {
		// The codec's own limit, which encoding/json (10,000 levels) lacks.
		if tooDeep(data) {
			return
		}
		t.Fatalf("ErrTooDeep for %q", data)
	}
	if (gotErr == nil) != (wantErr == nil) || reflect.TypeOf(gotErr) != reflect.TypeOf(wantErr) {
		t.Fatalf("%T: codec error %v, encoding/json %v, input %q", got, gotErr, wantErr, data)
	}
	clobber(len(data))
	if wantErr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%T: codec decoded %#v, encoding/json %#v, input %q", got, got, want, data)
	}
	if fastErr := jsoncodec.FastUnmarshal(data, &fast); fastErr == nil {
		clobber(len(data))
		if wantErr != nil {
			t.Fatalf("%T: fast path accepted what encoding/json refuses (%v), input %q", fast, wantErr, data)
		}
		if !reflect.DeepEqual(fast, want) {
			t.Fatalf("%T: fast path decoded %#v, encoding/json %#v, input %q", fast, fast, want, data)
		}
	}
}

// tooDeep reports whether data nests more than shared.MaxDepth levels,
// counted with encoding/json's tokenizer.
func tooDeep(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	d := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			// Invalid JSON: the codec's pass counts brackets outside strings.
			return true
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if d++; d > shared.MaxDepth {
				return true
			}
		case json.Delim('}'), json.Delim(']'):
			d--
		}
	}
}

// clobber decodes n bytes of garbage, which overwrites the library's pooled
// input buffer: a decoded value that still pointed into it (a string or raw
// message not copied out) would change, and the comparison after it fail.
func clobber(n int) {
	var v any
	_ = jsoncodec.FastUnmarshal(bytes.Repeat([]byte{'\xff'}, n), &v)
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
