package composition_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/golden/composition"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// chain nests leaf under depth objects {"<member>": ...}.
func chain(member string, depth int, leaf string) []byte {
	return chainWith(member, depth, leaf, "")
}

// chainWith is chain with more members (rest) after the nested one at every
// level.
func chainWith(member string, depth int, leaf, rest string) []byte {
	var b bytes.Buffer
	for range depth {
		b.WriteString(`{"` + member + `":`)
	}
	b.WriteString(leaf)
	b.WriteString(strings.Repeat(rest+"}", depth))
	return b.Bytes()
}

// decodeBody decodes body the way a generated client decodes a success
// response (idemrt.DecodeJSON).
func decodeBody(body []byte, dst any) error {
	resp := &http.Response{
		StatusCode: 200,
		Header:     http.Header{"Content-Type": {"application/json"}},
		Body:       io.NopCloser(bytes.NewReader(body)),
	}
	return idemrt.DecodeJSON(resp, dst)
}

// within runs f and fails the test when it has not returned after limit: a
// decoder that is exponential in the depth never returns in time (f is left
// running; the test binary ends it).
func within(t *testing.T, limit time.Duration, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
		t.Fatalf("still decoding after %v: not linear in the body", limit)
		return nil
	}
}

// The hostile depth: far below the depth limit, far above what an
// exponential decoder finishes in two seconds.
const hostileDepth = 24

// TestRecursiveAnyOfIsLinear: a recursive anyOf 24 levels deep whose every
// level is accepted by two variants holding the next level decodes at once,
// through both decoders, and every level sets both branches.
func TestRecursiveAnyOfIsLinear(t *testing.T) {
	body := []byte(`{"any":` + string(chainWith("child", hostileDepth, `{"value":"leaf"}`, `,"tag":"t"`)) + `}`)
	var out composition.Nodes
	if err := within(t, 2*time.Second, func() error { return decodeBody(body, &out) }); err != nil {
		t.Fatal(err)
	}
	n := out.Any
	for range hostileDepth {
		if n.AnyBranch == nil || n.AnyTagged == nil || n.Leaf != nil || n.AnyTagged.Tag != "t" {
			t.Fatalf("branch level: %+v", n)
		}
		n = &n.AnyBranch.Child
	}
	if n.Leaf == nil || n.Leaf.Value != "leaf" || n.AnyBranch != nil {
		t.Fatalf("leaf level: %+v", n)
	}
	var viaStd composition.Nodes
	if err := within(t, 2*time.Second, func() error { return json.Unmarshal(body, &viaStd) }); err != nil {
		t.Fatal(err)
	}
}

// TestRecursiveOneOfIsLinear: the same for a oneOf without discriminator
// whose levels carry a member no variant declares (no variant fits
// strictly).
func TestRecursiveOneOfIsLinear(t *testing.T) {
	body := []byte(`{"one":` + string(chainWith("next", hostileDepth, `{"value":"leaf"}`, `,"x":1`)) + `}`)
	var out composition.Nodes
	if err := within(t, 2*time.Second, func() error { return decodeBody(body, &out) }); err != nil {
		t.Fatal(err)
	}
	n := out.One
	for range hostileDepth {
		if n.OneBranch == nil || n.Leaf != nil {
			t.Fatalf("branch level: %+v", n)
		}
		n = &n.OneBranch.Next
	}
	if n.Leaf == nil || n.Leaf.Value != "leaf" {
		t.Fatalf("leaf level: %+v", n)
	}
}

// TestRecursiveUnionFailureIsLinear: a leaf that no variant takes makes
// every level fail; the failure must not send each level through its other
// variants (2^24 decodes). The error is ErrNoVariant.
func TestRecursiveUnionFailureIsLinear(t *testing.T) {
	for _, member := range []string{"any", "one"} {
		inner := "child"
		if member == "one" {
			inner = "next"
		}
		body := []byte(`{"` + member + `":` + string(chain(inner, hostileDepth, `[{"value":5}]`)) + `}`)
		var out composition.Nodes
		err := within(t, 2*time.Second, func() error { return decodeBody(body, &out) })
		if !errors.Is(err, idemrt.ErrNoVariant) {
			t.Fatalf("%s: %v", member, err)
		}
		err = within(t, 2*time.Second, func() error { return json.Unmarshal(body, &out) })
		if !errors.Is(err, idemrt.ErrNoVariant) {
			t.Fatalf("%s via encoding/json: %v", member, err)
		}
	}
}

// TestNullableChainTooDeep: a nullable chain of 9,000 levels (1 MB of
// braces) fails at once with ErrTooDeep, through the client's decoder and
// through encoding/json; one at the depth limit decodes.
func TestNullableChainTooDeep(t *testing.T) {
	body := []byte(`{"chain":` + string(chain("next", 9000, `{"value":"end"}`)) + `}`)
	var out composition.Nodes
	err := within(t, 2*time.Second, func() error { return decodeBody(body, &out) })
	if !errors.Is(err, idemrt.ErrTooDeep) {
		t.Fatalf("client decoder: %v", err)
	}
	err = within(t, 2*time.Second, func() error { return json.Unmarshal(body, &out) })
	if !errors.Is(err, idemrt.ErrTooDeep) {
		t.Fatalf("encoding/json: %v", err)
	}
	ok := []byte(`{"chain":` + string(chain("next", idemrt.MaxJSONDepth-2, `{"value":"end"}`)) + `}`)
	if err := decodeBody(ok, &out); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	c := out.Chain
	for c != nil && c.Next.IsSet() {
		c, _ = c.Next.Get()
	}
	if c == nil || c.Value == nil || *c.Value != "end" {
		t.Fatalf("end of the chain: %+v", c)
	}
}

// TestClientRefusesDeepBody: a loopback server answering GetNodes with the
// 9,000-level chain makes the call fail with ErrDecode and ErrTooDeep.
func TestClientRefusesDeepBody(t *testing.T) {
	body := []byte(`{"chain":` + string(chain("next", 9000, `{"value":"end"}`)) + `}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	c, err := composition.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.GetNodes(context.Background())
	if !errors.Is(err, idemrt.ErrTooDeep) || !errors.Is(err, idemrt.ErrDecode) {
		t.Fatalf("GetNodes: %v", err)
	}
}

// hostileShapes are 1 MB bodies of every recursive shape, at most the depth
// limit deep.
func hostileShapes() map[string][]byte {
	const mb = 1 << 20
	big := `"` + strings.Repeat("x", mb) + `"`
	wide := make([]string, 0, mb/40)
	for i := 0; i < mb/40; i++ {
		wide = append(wide, `{"child":{"child":{"value":"v"}}}`)
	}
	return map[string][]byte{
		"deep anyOf":   []byte(`{"any":` + string(chain("child", 120, `{"value":`+big+`}`)) + `}`),
		"deep oneOf":   []byte(`{"one":` + string(chain("next", 120, `{"value":`+big+`}`)) + `}`),
		"nullable":     []byte(`{"chain":` + string(chain("next", 120, `{"value":`+big+`}`)) + `}`),
		"wide anyOf":   []byte(`[` + strings.Join(wide, ",") + `]`),
		"string leaf":  []byte(`{"any":{"value":` + big + `}}`),
		"failing leaf": []byte(`{"any":` + string(chain("child", 120, `{"value":[`+big+`]}`)) + `}`),
	}
}

// TestDecodingAllocatesLinearly: decoding 1 MB of any recursive shape
// allocates under 10 MB besides the decoded values (no copy of the subtree
// per level) and keeps under 3 MB once decoded (no raw JSON kept per
// level). The wide shape is the exception for what it keeps: 26,000 values
// of three union levels each are 5.7 MB of Go structs.
func TestDecodingAllocatesLinearly(t *testing.T) {
	for name, body := range hostileShapes() {
		var dst any = new(composition.Nodes)
		if name == "wide anyOf" {
			dst = new([]composition.AnyNode)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		err := within(t, 10*time.Second, func() error { return decodeBody(body, dst) })
		took := time.Since(start)
		// Twice: the first leaves pooled buffers in the pools' victim caches.
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&after)
		if name == "failing leaf" {
			if !errors.Is(err, idemrt.ErrNoVariant) {
				t.Errorf("%s: %v", name, err)
			}
		} else if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		allocated := after.TotalAlloc - before.TotalAlloc
		kept := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		t.Logf("%s: %d bytes in, %d allocated, %d kept, %v", name, len(body), allocated, kept, took)
		if raceEnabled {
			continue
		}
		if allocated-uint64(max(kept, 0)) > 10<<20 {
			t.Errorf("%s: %d bytes allocated for %d bytes of JSON", name, allocated, len(body))
		}
		if kept > 3<<20 && name != "wide anyOf" {
			t.Errorf("%s: %d bytes kept for %d bytes of JSON", name, kept, len(body))
		}
		runtime.KeepAlive(dst)
	}
}

// BenchmarkRecursiveUnion20 decodes a recursive anyOf and a recursive oneOf
// 20 levels deep.
func BenchmarkRecursiveUnion20(b *testing.B) {
	body := []byte(`{"any":` + string(chain("child", 20, `{"value":"leaf"}`)) +
		`,"one":` + string(chain("next", 20, `{"value":"leaf"}`)) + `}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var out composition.Nodes
		if err := decodeBody(body, &out); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWideAnyOf decodes 1 MB of small recursive anyOf values.
func BenchmarkWideAnyOf(b *testing.B) {
	body := hostileShapes()["wide anyOf"]
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var out []composition.AnyNode
		if err := decodeBody(body, &out); err != nil {
			b.Fatal(err)
		}
	}
}
