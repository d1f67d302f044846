package generator

import (
	"strings"
	"testing"
)

// TestDocLinesReflowsParagraphs: an author's consecutive prose lines are one
// paragraph, so they are joined and wrapped together; markup stays as written.
func TestDocLinesReflowsParagraphs(t *testing.T) {
	text := strings.Repeat("word ", 25) + "\nnext line of the same paragraph.\n\n- a list item\n- another\n\n```\ncode  stays\n```"
	got := docLines(text)
	want := []string{
		strings.TrimSpace(strings.Repeat("word ", 20)),
		"word word word word word next line of the same paragraph.",
		"",
		"- a list item",
		"- another",
		"",
		"```",
		"code  stays",
		"```",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
