package generator

import (
	"bytes"
	"testing"

	"github.com/idemgen/idemgen/ir"
)

// TestDocCacheChangesNoByte generates every fixture and (without -short)
// real-world document with the comment cache and without it (every comment
// converted from scratch, whole) and compares the files.
func TestDocCacheChangesNoByte(t *testing.T) {
	forEachDocument(t, func(t *testing.T, api *ir.API) {
		render := func(cached bool) []File {
			g, ops := preparedGen(api)
			if !cached {
				g.docs = nil
			}
			files, err := g.render(ops)
			if err != nil {
				t.Fatal(err)
			}
			return files
		}
		with, without := render(true), render(false)
		for i := range with {
			if !bytes.Equal(with[i].Content, without[i].Content) {
				t.Errorf("%s differs with the cache at byte %d", with[i].Name, firstDiff(with[i].Content, without[i].Content))
			}
		}
	})
}

// TestPlainLine checks which lines go/doc/comment prints as written.
func TestPlainLine(t *testing.T) {
	for line, want := range map[string]bool{
		`Order is an object (schema "order-v2").`: true,
		`It's retried: see /docs, then 1-2.`:      true,
		"":                                        false,
		" Indented is code.":                      false,
		"- item":                                  false,
		"# Heading":                               false,
		"See [Order].":                            false,
		"Use ``quotes''.":                         false,
		"It''s":                                   false,
		"+build linux":                            false,
		"Café":                                    false,
		"Tab\there":                               false,
	} {
		if got := plainLine(line); got != want {
			t.Errorf("plainLine(%q) = %v, want %v", line, got, want)
		}
	}
}

// TestPrintWithStandInLead checks that a comment whose lead is plain prints
// as the whole would, also where the rest's first line reads as a heading
// only after a paragraph.
func TestPrintWithStandInLead(t *testing.T) {
	for _, lines := range [][]string{
		{"Foo is an object.", "", "Details", "", "More text here."},
		{"Foo is an object.", "", "  - a list", "  - of items"},
		{"Foo is an object.", "", "See [the docs].", "", "[the docs]: https://example.com/docs"},
		{"Foo is an object.", "", "\tcode"},
		{"Foo is an object."},
	} {
		c := newDocCache(0)
		want := canonicalComment(lines)
		for range 2 { // computed, then remembered
			if got := c.print(lines); got != want {
				t.Errorf("print(%q) = %q, want %q", lines, got, want)
			}
		}
	}
}

// TestPlainTextPrintsAsDocComment checks plainText against go/doc/comment:
// where it says the lines print unchanged, they do.
func TestPlainTextPrintsAsDocComment(t *testing.T) {
	for _, tc := range []struct {
		lines []string
		plain bool
	}{
		{[]string{"Foo is an object.", "", "It has fields."}, true},
		{[]string{"Foo is an object.", "", "Details", "", "More text."}, false}, // a heading
		{[]string{"Foo is an object.", "", "Details."}, true},
		{[]string{"Foo is an object.", "", "Details"}, true}, // last: not a heading
		{[]string{"See the list:", "", "- a"}, false},
		{[]string{"Foo", "", "", "Bar."}, false},
		{nil, false},
	} {
		if got := plainText(tc.lines); got != tc.plain {
			t.Errorf("plainText(%q) = %v, want %v", tc.lines, got, tc.plain)
		}
		if tc.plain {
			if got, want := plainComment(tc.lines), canonicalComment(tc.lines); got != want {
				t.Errorf("plainComment(%q) = %q, canonicalComment = %q", tc.lines, got, want)
			}
		}
	}
}
