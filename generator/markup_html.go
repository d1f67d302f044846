package generator

import (
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// htmlTag matches a tag of the HTML that API documents write in
// descriptions (Stripe's <p>, <a href>, <code>, <ul><li>). Text with none of
// them is not HTML, so a "<T>" or "a < b" in Markdown or prose is left alone.
var htmlTag = regexp.MustCompile(`(?i)</?(p|a|code|ul|ol|li|br|strong|em|b|i|u|pre|h[1-6]|div|span|table|thead|tbody|tr|td|th|blockquote|hr|img|sup|sub|dl|dt|dd|section)(\s[^<>]*)?/?>`)

// endTag is an end tag, "</name>".
var endTag = regexp.MustCompile(`</([a-zA-Z][a-zA-Z0-9-]*)\s*>`)

// looksLikeHTML reports whether text uses HTML markup.
func looksLikeHTML(text string) bool {
	return strings.IndexByte(text, '<') >= 0 && htmlTag.MatchString(text)
}

// htmlToMarkdown rewrites HTML into the Markdown subset markdownToDoc reads:
// block elements become paragraphs (blank lines), list items "- item" (or
// "1. item"), <a href> "[text](url)", <pre> a fenced block, headings
// "# text", <br> a line break; entities are decoded, white space in text
// collapses as a browser would, and other tags (<strong>, <span>) are
// dropped, keeping their text. A tag htmlTag does not know is dropped too
// when the text closes it (Stripe's <amount>200</amount>), and kept as
// written when it does not ("<id>" is text that only looks like markup).
func htmlToMarkdown(text string) string {
	c := htmlConv{z: html.NewTokenizer(strings.NewReader(text)), closed: map[string]bool{}}
	for _, m := range endTag.FindAllStringSubmatch(text, -1) {
		c.closed[strings.ToLower(m[1])] = true
	}
	for {
		tt := c.z.Next()
		if tt == html.ErrorToken {
			break
		}
		c.token(tt)
	}
	return strings.TrimSpace(c.out.String())
}

// htmlConv is the state of one htmlToMarkdown run.
type htmlConv struct {
	z    *html.Tokenizer
	out  strings.Builder
	pre  int   // depth of <pre>
	ol   []int // the next number of each open <ol>, 0 for a <ul>
	href []string
	// closed holds the names of the end tags in the text: an unknown tag
	// that is closed somewhere is markup, one that is not is text.
	closed map[string]bool
}

// token handles one token.
func (c *htmlConv) token(tt html.TokenType) {
	switch tt {
	case html.TextToken:
		c.text(string(c.z.Text()))
		return
	case html.CommentToken, html.DoctypeToken:
		return
	}
	raw := string(c.z.Raw())
	tok := c.z.Token()
	if !htmlTag.MatchString(raw) {
		if !c.closed[tok.Data] || tt == html.SelfClosingTagToken {
			c.text(raw) // "<id>": text that only looks like markup
		}
		return // an element of the author's own, <amount>200</amount>: its text
	}
	end := tt == html.EndTagToken
	switch tok.Data {
	case "p", "div", "section", "table", "blockquote", "dl", "hr":
		c.block()
	case "h1", "h2", "h3", "h4", "h5", "h6":
		c.block()
		if !end {
			c.out.WriteString("# ")
		}
	case "ul", "ol":
		c.list(tok.Data, end)
	case "li", "dt", "dd", "tr":
		if !end {
			c.item()
		}
	case "br":
		c.out.WriteString("\n")
	case "pre":
		c.block()
		c.out.WriteString("```\n")
		if end {
			c.pre--
			c.block()
		} else {
			c.pre++
		}
	case "a":
		c.link(tok, end)
	case "code":
		if c.pre == 0 {
			c.out.WriteString("`")
		}
	case "td", "th":
		c.out.WriteString(" ")
	}
}

// text appends text: white space collapses outside <pre>.
func (c *htmlConv) text(s string) {
	if c.pre > 0 {
		c.out.WriteString(s)
		return
	}
	if s == "" {
		return
	}
	f := strings.Fields(s)
	lead, trail := isSpaceByte(s[0]), isSpaceByte(s[len(s)-1])
	if len(f) == 0 {
		lead, trail = true, false
	}
	if lead && !c.atLineStart() {
		c.out.WriteString(" ")
	}
	c.out.WriteString(strings.Join(f, " "))
	if trail && len(f) > 0 {
		c.out.WriteString(" ")
	}
}

// isSpaceByte reports whether b is HTML white space.
func isSpaceByte(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f'
}

// atLineStart reports whether the output is empty or ends a line (or an
// opened link or code span, so "<a> text" does not start with a space).
func (c *htmlConv) atLineStart() bool {
	s := c.out.String()
	if s == "" {
		return true
	}
	last := s[len(s)-1]
	return last == '\n' || last == ' ' || last == '['
}

// block starts a new paragraph.
func (c *htmlConv) block() {
	s := strings.TrimRight(c.out.String(), " ")
	c.out.Reset()
	c.out.WriteString(s)
	if s != "" && !strings.HasSuffix(s, "\n\n") {
		c.out.WriteString(strings.Repeat("\n", 2-trailingNewlines(s)))
	}
}

// trailingNewlines counts the newlines ending s, up to 2.
func trailingNewlines(s string) int {
	n := 0
	for n < 2 && strings.HasSuffix(s[:len(s)-n], "\n") {
		n++
	}
	return n
}

// list opens or closes a <ul> or <ol>. Nested lists flatten: Go doc
// comments have one level of list.
func (c *htmlConv) list(tag string, end bool) {
	if end {
		if len(c.ol) > 0 {
			c.ol = c.ol[:len(c.ol)-1]
		}
		if len(c.ol) == 0 {
			c.block()
		}
		return
	}
	if len(c.ol) == 0 {
		c.block()
	}
	n := 0
	if tag == "ol" {
		n = 1
	}
	c.ol = append(c.ol, n)
}

// item starts a list item on a line of its own.
func (c *htmlConv) item() {
	s := strings.TrimRight(c.out.String(), " ")
	c.out.Reset()
	c.out.WriteString(s)
	if s != "" && !strings.HasSuffix(s, "\n") {
		c.out.WriteString("\n")
	}
	marker := "- "
	if k := len(c.ol) - 1; k >= 0 && c.ol[k] > 0 {
		marker = strconv.Itoa(c.ol[k]) + ". "
		c.ol[k]++
	}
	c.out.WriteString(marker)
}

// link opens "[" or closes "](url)"; a link without an href is its text.
func (c *htmlConv) link(tok html.Token, end bool) {
	if !end {
		href := ""
		for _, a := range tok.Attr {
			if a.Key == "href" {
				href = strings.Join(strings.Fields(a.Val), "")
			}
		}
		c.href = append(c.href, href)
		if href != "" {
			c.out.WriteString("[")
		}
		return
	}
	if len(c.href) == 0 {
		return
	}
	href := c.href[len(c.href)-1]
	c.href = c.href[:len(c.href)-1]
	if href != "" {
		s := strings.TrimRight(c.out.String(), " ")
		c.out.Reset()
		c.out.WriteString(s + "](" + href + ")")
	}
}
