package generator

import (
	"strings"
	"testing"
)

// render is the comment a description becomes, without the // markers.
func render(text string) string {
	lines := strings.Split(canonicalComment(docLines(text)), "\n")
	for i, l := range lines {
		l = strings.TrimPrefix(l, "//")
		lines[i] = strings.TrimPrefix(l, " ")
	}
	return strings.Join(lines, "\n")
}

// TestDocMarkup renders each construct of HTML and Markdown descriptions
// as Go doc comment syntax (https://go.dev/doc/comment).
func TestDocMarkup(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"html paragraphs", "<p>One.</p><p>Two\n  lines.</p>", "One.\n\nTwo lines."},
		{"html link", `<p>See <a href="https://stripe.com/docs/x">the guide</a>.</p>`,
			"See [the guide].\n\n[the guide]: https://stripe.com/docs/x"},
		{"html relative link keeps its text", `<p>See <a href="/docs/x">the guide</a>.</p>`, "See the guide."},
		{"html code and entities", "<p>Set <code>a</code> &amp; <code>b</code> &lt; 3.</p>", "Set `a` & `b` < 3."},
		{"html list", "<p>Either:</p><ul><li>one</li><li>two <strong>bold</strong></li></ul><p>After.</p>",
			"Either:\n\n  - one\n  - two bold\n\nAfter."},
		{"html ordered list", "<p>Steps:</p><ol><li>first</li><li>second</li></ol>", "Steps:\n\n 1. first\n 2. second"},
		{"html heading", "<h2>Limits</h2><p>Ten.</p>", "# Limits\n\nTen."},
		{"html pre", "<p>Call:</p><pre>curl -X POST\n  /v1/x</pre><p>Done.</p>", "Call:\n\n\tcurl -X POST\n\t  /v1/x\n\nDone."},
		{"html br joins the paragraph's lines", "<p>a<br>b</p>", "a b"},
		{"author's closed tags drop", "<p>A <amount>200</amount> fee.</p>", "A 200 fee."},
		{"placeholder stays", "<p>Send <id> here.</p>", "Send <id> here."},
		{"markdown paragraphs", "one\ntwo\n\nthree", "one two\n\nthree"},
		{"markdown list with continuation", "Items:\n\n- one\n  more\n* two\n\nThen:\n\n1. first\n2) second", "Items:\n\n  - one\n    more\n  - two\n\nThen:\n\n 1. first\n 2. second"},
		{"markdown link", "Read [the docs](https://x.dev/d \"t\") and [again](https://x.dev/d).",
			"Read [the docs] and [again].\n\n[the docs]: https://x.dev/d\n[again]: https://x.dev/d"},
		{"markdown relative link", "Read [the docs](/d).", "Read the docs."},
		{"markdown image and autolink", "![a chart](https://x.dev/c.png) at <https://x.dev>.", "a chart at https://x.dev."},
		{"markdown strong", "A **bold** and __strong__ word, snake_case_name.", "A bold and strong word, snake_case_name."},
		{"markdown fenced code", "Call:\n\n```go\nx := 1\n\n  y()\n```\n\nDone.", "Call:\n\n\tx := 1\n\n\t  y()\n\nDone."},
		{"markdown headings", "# Title\nText.\n### Deep ###\nMore.", "# Title\n\nText.\n\n# Deep\n\nMore."},
		{"markdown quote and break", "> quoted\n\n---\n\nafter", "quoted\n\nafter"},
		{"code span kept", "Use `a_b` *here*.", "Use `a_b` *here*."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(tc.in); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestDocMarkupStaysInComments: markup cannot smuggle a line out of the
// comment, a directive or a build constraint: entities that decode to line
// separators or control characters are cleaned again after decoding.
func TestDocMarkupStaysInComments(t *testing.T) {
	for _, in := range []string{
		"<p>x&#x2028;//go:generate rm -rf /</p>",
		"<p>x&#10;+build ignore</p>",
		"<pre>\n//go:build ignore\n</pre>",
		"x\n```\n*/ package evil\n```",
		"<p>a&#0;b&#x85;//line x.go:1</p>",
		"[t](https://x.dev/a\u2028//go:generate)",
	} {
		out := canonicalComment(docLines(in))
		for _, l := range strings.Split(out, "\n") {
			if !strings.HasPrefix(l, "// ") && !strings.HasPrefix(l, "//\t") && l != "//" {
				t.Errorf("%q: line %q", in, l)
			}
			if strings.HasPrefix(l, "// +build") || strings.ContainsAny(l, "\x00\u2028\u0085\r") {
				t.Errorf("%q: line %q", in, l)
			}
		}
	}
}
