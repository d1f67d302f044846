package generator

import (
	"strings"
	"sync"
)

// docCache remembers, for one Generate call, the comment lines of each
// distinct paragraph and the printed comment of each distinct text. Real
// documents repeat their descriptions: OpenAI's 11,900 schema and property
// descriptions hold 3,300 distinct texts, Stripe's 16,750 hold 2,900, and
// converting Markdown or HTML into a doc comment (docLinesWrap, then
// go/doc/comment in canonicalText) was the generator's largest own cost.
// Both steps are pure functions of their input, so the cache changes no
// byte of output. Files are built concurrently: a mutex guards the maps
// (the work is done outside it; two goroutines may do the same work once
// each, and store the same result). A nil *docCache computes every time.
type docCache struct {
	mu    sync.Mutex
	paras map[paraKey][]string
	texts map[string]string
}

// paraKey is a paragraph and the width it is wrapped at.
type paraKey struct {
	text  string
	width int
}

// newDocCache returns an empty cache sized for about n comments (growing
// the maps was a tenth of the cache's cost on OpenAI's document).
func newDocCache(n int) *docCache {
	return &docCache{paras: make(map[paraKey][]string, n), texts: make(map[string]string, n)}
}

// lines is docLinesWrap(text, width). The slice returned is shared: callers
// must not modify it.
func (c *docCache) lines(text string, width int) []string {
	if text == "" {
		return nil
	}
	if c == nil {
		return docLinesWrap(text, width)
	}
	k := paraKey{text, width}
	c.mu.Lock()
	l, ok := c.paras[k]
	c.mu.Unlock()
	if !ok {
		l = docLinesWrap(text, width)
		c.mu.Lock()
		c.paras[k] = l
		c.mu.Unlock()
	}
	return l
}

// canonical is canonicalText(text).
func (c *docCache) canonical(text string) string {
	if c == nil {
		return canonicalText(text)
	}
	c.mu.Lock()
	t, ok := c.texts[text]
	c.mu.Unlock()
	if !ok {
		t = canonicalText(text)
		c.mu.Lock()
		c.texts[text] = t
		c.mu.Unlock()
	}
	return t
}

// standIn is the lead paragraph print uses in place of a plain one.
const standIn = "A."

// print is canonicalComment(lines). Most comments open with a sentence of
// their own ("Foo is an object (schema \"foo\")."), so the printed text of
// the whole is seldom seen twice, while what follows it often is. When the
// lead is one plain line (plainLine: go/doc/comment prints it as written),
// the rest is printed after a stand-in lead, remembered by the rest, and the
// stand-in swapped for the lead. The stand-in stands where the lead was, so
// the rest reads in the same context (its first line follows a paragraph
// and a blank line, which decides, for one, whether it can be a heading).
func (c *docCache) print(lines []string) string {
	if c == nil {
		return canonicalComment(lines)
	}
	switch {
	case plainText(lines):
		return plainComment(lines)
	case len(lines) > 2 && lines[1] == "" && plainLine(lines[0]):
		rest := c.canonical(standIn + "\n\n" + strings.Join(lines[2:], "\n"))
		if after, ok := strings.CutPrefix(rest, "// "+standIn+"\n//\n"); ok {
			return "// " + lines[0] + "\n//\n" + after
		}
	}
	return c.canonical(strings.Join(lines, "\n"))
}

// plainComment adds the // markers to plain lines.
func plainComment(lines []string) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("//")
		if l != "" {
			b.WriteByte(' ')
			b.WriteString(l)
		}
	}
	return b.String()
}

// plainText reports whether go/doc/comment prints lines unchanged: plain
// lines in paragraphs one blank line apart, none of which can read as a
// heading (a paragraph of one line, between two others, ending in a letter
// or digit). Lines come from docLinesWrap: no blank line opens or ends them
// and no two are adjacent, which plainText checks all the same.
func plainText(lines []string) bool {
	for i, l := range lines {
		if l == "" {
			if i == 0 || i == len(lines)-1 || lines[i-1] == "" {
				return false
			}
			continue
		}
		if !plainLine(l) {
			return false
		}
		last := l[len(l)-1]
		if i > 0 && lines[i-1] == "" && i+1 < len(lines) && lines[i+1] == "" && (isLetter(last) || last >= '0' && last <= '9') {
			return false // may be a heading
		}
	}
	return len(lines) > 0
}

// plainLine reports whether go/doc/comment prints line, as a paragraph of
// its own, unchanged: it starts with a letter (not a list, code, heading
// or link definition, not "+build") and holds only ASCII letters, digits,
// spaces and punctuation that doc comments give no meaning (no brackets,
// which make links, no backquotes or doubled single quotes, which become
// curly quotes).
func plainLine(line string) bool {
	if line == "" || !isLetter(line[0]) {
		return false
	}
	for i := 0; i < len(line); i++ {
		b := line[i]
		switch {
		case isLetter(b), b >= '0' && b <= '9':
		case b == '\'' && (i+1 == len(line) || line[i+1] != '\''):
		case strings.IndexByte(" .,;:()\"_-/", b) >= 0:
		default:
			return false
		}
	}
	return true
}

// isLetter reports whether b is an ASCII letter.
func isLetter(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
