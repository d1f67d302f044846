package annotate

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzAnnotate feeds arbitrary documents to Annotate. It must not panic (a
// recovered panic surfaces as an "internal error"), a document it edits must
// be a fixed point of a second run, and the edit may only add bytes: every
// byte of the input appears, in order, in the output.
func FuzzAnnotate(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.*")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("paths:\n  /a:\n    get:\n      x: 1\n"))
	f.Add([]byte(`{"paths":{"/a":{"post":{}}}}`))
	f.Add([]byte("paths: {/a: {post: {parameters: [{$ref: '#/paths/~1a/post/parameters/0'}]}}}\n"))
	f.Add([]byte("paths:\n  /a: &x\n    get: {}\n  /b: *x\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		res, err := Annotate(src)
		if err != nil {
			if strings.Contains(err.Error(), "internal error") || errors.Is(err, ErrUnsafeLayout) {
				t.Fatalf("panic on %q: %v", src, err)
			}
			return
		}
		if !isSupersequence(res.Annotated, src) {
			t.Fatalf("the rewrite dropped bytes of %q:\n%q", src, res.Annotated)
		}
		if len(res.Edits) == 0 {
			return
		}
		again, err := Annotate(res.Annotated)
		if err != nil {
			t.Fatalf("the rewrite of %q does not parse: %v\n%s", src, err, res.Annotated)
		}
		if len(again.Edits) != 0 {
			t.Fatalf("a second run edits %q again:\n%s", src, again.Annotated)
		}
	})
}

// isSupersequence reports whether sub's bytes all appear in s, in order.
func isSupersequence(s, sub []byte) bool {
	for _, b := range sub {
		i := bytes.IndexByte(s, b)
		if i < 0 {
			return false
		}
		s = s[i+1:]
	}
	return true
}
