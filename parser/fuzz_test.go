package parser

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/idemgen/idemgen/ir"
)

// FuzzExtensionValue feeds arbitrary YAML values to both extensions: parsing
// never panics, and whatever it accepts obeys the rules (a key is a valid
// header name; listed statuses are in range, sorted, unique, and never an
// auth failure, 412 or a success).
func FuzzExtensionValue(f *testing.F) {
	for _, s := range []string{
		"true", "false", "{key: {in: header, name: Idempotency-Key}}", "{key: {in: query, name: k}}",
		"[408, 429, 502, 503, 504]", `["5XX", 429]`, `["4XX"]`, "[401, 412]", "[200]", `["503"]`,
		"[true, 1.5, null, {a: 1}, [1]]", "&a [*a]", "{key: &k {name: *k}}", `"yes"`, "[99, 600, \"6XX\"]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		root, err := parseTree([]byte("x-idempotent: " + value + "\nx-retryable-status: " + value + "\n"))
		if err != nil || root.Kind != 4 /* yaml.MappingNode */ {
			return
		}
		sink := &diagSink{files: map[string]*docFile{"f.yaml": {key: "f.yaml", display: "f.yaml", root: root}}}
		r := extReader{sink: sink, op: "op"}
		at := loc{"f.yaml", "", root}
		if idem := r.idempotent(at); idem != nil && idem.kind == ir.IdempotencyKeyed && !isToken(idem.keyName) {
			t.Errorf("accepted key name %q", idem.keyName)
		}
		if list := r.retryable(at); list != nil {
			checkStatusSet(t, list.set)
		}
		for _, d := range sink.list {
			if d.Rule == "" || d.Message == "" {
				t.Errorf("diagnostic without rule or message: %+v", d)
			}
		}
	})
}

func checkStatusSet(t *testing.T, s ir.StatusSet) {
	if !sort.IntsAreSorted(s.Codes) || !sort.IntsAreSorted(s.Classes) {
		t.Errorf("unsorted set %+v", s)
	}
	for i, c := range s.Codes {
		if c < 100 || c > 599 || neverRetried[c] != "" || (c >= 200 && c < 400) || (i > 0 && s.Codes[i-1] == c) {
			t.Errorf("accepted code %d in %+v", c, s)
		}
	}
	for _, c := range s.Classes {
		if c != 1 && c != 5 {
			t.Errorf("accepted class %dXX", c)
		}
	}
}

// FuzzLoad loads arbitrary documents: Load never panics, an unusable
// document is an error naming the file, and a loaded API keeps the IR's
// invariants. The seeds are every spec of testdata/specs plus hostile shapes
// in testdata/fuzz.
func FuzzLoad(f *testing.F) {
	addSeedFiles(f, "../testdata/specs/*.yaml", "../testdata/specs/*/*.yaml", "testdata/fuzz/*")
	f.Fuzz(func(t *testing.T, data []byte) {
		api, diags, err := LoadData("fuzz.yaml", data, Options{})
		if err != nil {
			if api != nil || diags != nil {
				t.Errorf("error %v with a result", err)
			}
			return
		}
		if api == nil {
			t.Fatal("no error and no API")
		}
		checkInvariants(t, api)
	})
}

// addSeedFiles adds the contents of the files matching patterns to f's corpus.
func addSeedFiles(f *testing.F, patterns ...string) {
	for _, pattern := range patterns {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data)
			}
		}
	}
}
