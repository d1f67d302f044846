package generator

import (
	doccomment "go/doc/comment"
	"strings"

	"github.com/dave/jennifer/jen"
)

// docLines turns free text from a document into comment lines: cleaned by
// specText (the one path of spec text into comments), trailing spaces
// trimmed, runs of blank lines folded.
func docLines(text string) []string {
	return docLinesWrap(text, wrapWidth)
}

// docLinesWrap is docLines wrapping prose at width (0: no wrapping).
// Consecutive prose lines form one paragraph in Markdown and in Go doc
// comments alike, so they are joined before wrapping: a long line wrapped on
// its own would leave a ragged short piece before the author's next line.
// Markup lines (lists, tables, headings, code, fenced blocks) stay as written.
func docLinesWrap(text string, width int) []string {
	// HTML entities may decode to characters specText removes: clean again.
	text = specText(docMarkup(specText(text)))
	var lines []string
	var para []string
	flush := func() {
		if len(para) > 0 {
			lines = append(lines, wrap(strings.Join(para, " "), width)...)
			para = para[:0]
		}
	}
	blank, fenced := true, false
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimRight(l, " \t")
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
		}
		switch {
		case l == "":
			flush()
			if !blank {
				lines = append(lines, "")
			}
			blank = true
			continue
		case width > 0 && !fenced && isProse(l):
			para = append(para, l)
		default:
			flush()
			lines = append(lines, l)
		}
		blank = false
	}
	flush()
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// comment renders paragraphs as one // comment block; empty paragraphs are
// skipped. It returns an empty statement when there is nothing to say.
func comment(paragraphs ...string) *jen.Statement {
	return (*docCache)(nil).comment(false, paragraphs)
}

// commentLead is comment; with keepFirst the first paragraph is not wrapped
// (a method's contract sentence stays on one greppable line).
func commentLead(keepFirst bool, paragraphs ...string) *jen.Statement {
	return (*docCache)(nil).comment(keepFirst, paragraphs)
}

// comment is comment, remembering the work for the rest of the run.
func (g *generation) comment(paragraphs ...string) *jen.Statement {
	return g.docs.comment(false, paragraphs)
}

// commentLead is commentLead, remembering the work for the rest of the run.
func (g *generation) commentLead(keepFirst bool, paragraphs ...string) *jen.Statement {
	return g.docs.comment(keepFirst, paragraphs)
}

// comment renders paragraphs as the text of one // comment block, through
// the cache when c is not nil.
func (c *docCache) comment(keepFirst bool, paragraphs []string) *jen.Statement {
	var lines []string
	for i, p := range paragraphs {
		width := wrapWidth
		if keepFirst && i == 0 {
			width = 0
		}
		pl := c.lines(p, width)
		if len(pl) == 0 {
			continue
		}
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, pl...)
	}
	if len(lines) == 0 {
		return jen.Null()
	}
	text := c.print(lines)
	if text == "" {
		return jen.Null()
	}
	return jen.Comment(text).Line()
}

// canonicalComment prints comment lines (without markers) through
// go/doc/comment, as gofmt does for doc comments, and adds the // markers,
// so the output is already in gofmt's canonical form (headings, lists, code
// blocks) whatever the document's text looks like.
func canonicalComment(lines []string) string {
	return canonicalText(strings.Join(lines, "\n"))
}

// canonicalText is canonicalComment of the lines joined by newlines.
func canonicalText(text string) string {
	var p doccomment.Parser
	var pr doccomment.Printer
	text = strings.TrimSuffix(string(pr.Comment(p.Parse(text))), "\n")
	if text == "" {
		return ""
	}
	out := strings.Split(text, "\n")
	for i, l := range out {
		switch {
		case l == "":
			out[i] = "//"
		case l[0] == '\t':
			out[i] = "//" + l
		default:
			out[i] = "// " + neutralLine(l)
		}
	}
	return strings.Join(out, "\n")
}

// wrapWidth is the column at which long prose lines are wrapped.
const wrapWidth = 100

// wrap splits a long line of prose at spaces so no piece exceeds width
// (a single longer word stays whole). Lines that carry structure (indented
// code, list items, tables, headings) are left alone: breaking them would
// change what they mean.
func wrap(line string, width int) []string {
	if len(line) <= width || !isProse(line) {
		return []string{line}
	}
	var out []string
	var cur strings.Builder
	for _, w := range strings.Fields(line) {
		if cur.Len() > 0 && cur.Len()+1+len(w) > width {
			out = append(out, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(w)
	}
	return append(out, cur.String())
}

// isProse reports whether a line is plain text rather than markup.
func isProse(line string) bool {
	switch line[0] {
	case ' ', '\t', '-', '*', '+', '|', '#', '>', '`':
		return false
	}
	if i := strings.IndexAny(line, ".)"); i > 0 && i < 4 && strings.Trim(line[:i], "0123456789") == "" {
		return false // "1. item"
	}
	if _, ok := linkDefLine(line); ok {
		return false // "[text]: url" stays on a line of its own
	}
	return true
}
