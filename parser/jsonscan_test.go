package parser

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// scanMatches fails the test unless the fast scan of body gives what
// encoding/json's reading gives, or refuses it (the careful reading then
// decides); it reports whether the scan took it.
func scanMatches(t *testing.T, name string, body []byte) bool {
	t.Helper()
	fast, ok := scanJSONTree(body)
	slow, err := readJSONTree(body)
	if ok && err != nil {
		t.Errorf("%s: the scan took what encoding/json refuses (%v)", name, err)
	}
	if ok && err == nil && !reflect.DeepEqual(fast, slow) {
		t.Errorf("%s: the scanned tree differs from encoding/json's", name)
	}
	return ok
}

func TestJSONScanMatchesDecoder(t *testing.T) {
	var files []string
	for _, dir := range []string{filepath.Join(testutil.ModuleRoot(t), "testdata"), "testdata"} {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Ext(path) == ".json" {
				files = append(files, path)
			}
			return nil
		})
	}
	if dir := testutil.SharedSpecsDir(t); dir != "" {
		files = append(files, filepath.Join(dir, "github-api.json"), filepath.Join(dir, "discord.json"))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		body := bytes.TrimPrefix(data, bom)
		if _, err := readJSONTree(body); err == nil && !scanMatches(t, f, body) {
			t.Errorf("%s: valid JSON the scan refused", f)
		}
	}
}

func TestJSONScanEdges(t *testing.T) {
	took := map[string]string{
		"escapes and non-ASCII": "{\"a\\\"b\": \"\\u00e9\\ud83d\\ude00\\n\", \"é\": \"ü\\t\"}",
		"lone surrogate":        `{"a": "\ud800x"}`,
		"invalid UTF-8":         "{\"a\": \"\xff\xfe\"}",
		"lines and runes":       "{\r\n  \"ключ\": [1,\n   -0.5e+3, true, false, null, {}, []],\"b\"  :\t\"x\"}\n",
		"numbers":               `[0, -0, 12, 1.5, 1e9, 1E-2, -12.25e10]`,
		"top-level scalar":      ` "just a string" `,
	}
	for name, doc := range took {
		if !scanMatches(t, name, []byte(doc)) {
			t.Errorf("%s: the scan refused %q", name, doc)
		}
	}
	refused := map[string]string{
		"trailing data":      `{} {}`,
		"trailing comma":     `[1,]`,
		"leading zero":       `[01]`,
		"bare word":          `[nul]`,
		"control char":       "[\"a\x01\"]",
		"unterminated":       `{"a": "b`,
		"non-string key":     `{1: 2}`,
		"empty":              ` `,
		"too deep":           strings.Repeat("[", maxJSONDepth+2) + strings.Repeat("]", maxJSONDepth+2),
		"dot without digits": `[1.]`,
	}
	for name, doc := range refused {
		if scanMatches(t, name, []byte(doc)) {
			t.Errorf("%s: the scan took %q", name, doc)
		}
	}
}

// FuzzJSONScanMatches: whatever the scan takes, encoding/json reads the same.
func FuzzJSONScanMatches(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.5, "x\u00e9"], "b": {"c": null}}`, "[true,false,\n\"\\ud83d\"]", `{"k":"é"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		scanMatches(t, "fuzz", data)
	})
}
