package generator

import (
	"regexp"
	"strings"
)

// docMarkup rewrites the markup of (cleaned) spec text into Go doc comment
// syntax (https://go.dev/doc/comment): HTML first becomes Markdown
// (htmlToMarkdown), then markdownToDoc turns the Markdown into doc comment
// text. It runs inside docLinesWrap, after specText and before the lines
// are printed, so its output takes the one path into comments.
func docMarkup(text string) string {
	if looksLikeHTML(text) {
		text = htmlToMarkdown(text)
	}
	return markdownToDoc(text)
}

var (
	// mdHeading is an ATX heading, "## Title".
	mdHeading = regexp.MustCompile(`^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$`)
	// mdImage is an image, "![alt](url)": its alt text stays.
	mdImage = regexp.MustCompile(`!\[([^\[\]]*)\]\([^()\s]*\)`)
	// mdLink is an inline link, "[text](url "title")".
	mdLink = regexp.MustCompile(`\[([^\[\]]+)\]\(\s*<?([^()\s<>]*)>?(?:\s+"[^"]*")?\s*\)`)
	// mdAutolink is "<https://…>".
	mdAutolink = regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9+.-]*://[^<>\s]+)>`)
	// mdStrong is "**text**" or "__text__".
	mdStrong = regexp.MustCompile(`\*\*([^*\n]+)\*\*|\b__([^_\n]+)__\b`)
	// mdBreak is a thematic break, "---" or "* * *".
	mdBreak = regexp.MustCompile(`^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$`)
	// mdQuote is a block quote marker.
	mdQuote = regexp.MustCompile(`^ {0,3}> ?`)
	// absoluteURL is what a doc comment link definition accepts.
	absoluteURL = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*://\S+$`)
)

// markdownToDoc turns the common Markdown constructs into doc comment
// syntax: fenced code blocks become indented blocks, headings "# Heading"
// paragraphs, links "[text]" with a "[text]: url" definition after the
// text (the printer moves definitions to the end of the comment), images
// their alt text, strong emphasis and block quote markers are dropped.
// Lists ("- item", "1. item") are already doc comment lists, and code
// spans keep their backticks. A line inside a code block is not touched.
func markdownToDoc(text string) string {
	var out []string
	links := &linkDefs{}
	fence, list := "", listState{}
	for _, l := range strings.Split(text, "\n") {
		if f := fenceMarker(l); f != "" && (fence == "" || strings.HasPrefix(f, fence)) {
			list = listState{}
			if fence == "" {
				fence = f
				out = append(out, "")
			} else {
				fence = ""
				out = append(out, "")
			}
			continue
		}
		if fence != "" {
			out = append(out, "\t"+l)
			continue
		}
		if item, ok := list.line(l); ok {
			out = append(out, inlineMarkdown(item, links))
			continue
		}
		out = append(out, markdownLine(l, links)...)
	}
	if len(links.defs) > 0 {
		out = append(out, "")
		out = append(out, links.defs...)
	}
	return strings.Join(out, "\n")
}

// mdListItem is a list item, "- item", "* item", "+ item", "1. item" or
// "1) item", possibly indented (nested lists flatten).
var mdListItem = regexp.MustCompile(`^\s*([-*+]|\d{1,9}[.)])[ \t]+\S`)

// listState is where markdownToDoc is relative to a list.
type listState struct {
	in    bool // the last item started a list that has not ended
	blank bool // the previous line was blank
}

// line indents the lines of a list as doc comments want them: an item
// "  - item", its continuation lines "    text". A doc comment list is a
// span of indented lines; an unindented "- item" would be a paragraph. A
// list goes on across blank lines while the next line is an item or
// indented; an unindented line after a blank line ends it. ok is false for
// a line that is not part of a list.
func (st *listState) line(l string) (string, bool) {
	t := strings.TrimSpace(l)
	blank := st.blank
	st.blank = t == ""
	switch {
	case t == "":
		return "", false
	case mayBeListItem(l) && mdListItem.MatchString(l) && !mdBreak.MatchString(l):
		st.in = true
		return "  " + t, true
	case st.in && (!blank || indented(l)):
		return "    " + t, true
	}
	st.in = false
	return "", false
}

// mayBeListItem reports whether l can match mdListItem: after white space
// it has a marker or a digit. Most lines do not, and the check costs much
// less than the expression.
func mayBeListItem(l string) bool {
	t := strings.TrimLeft(l, "\t\n\f\r ")
	return t != "" && (t[0] == '-' || t[0] == '*' || t[0] == '+' || t[0] >= '0' && t[0] <= '9')
}

// fenceMarker returns the run of backticks or tildes opening a fenced code
// block on l, or "".
func fenceMarker(l string) string {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 {
		return ""
	}
	for _, c := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, c) {
			return t[:len(t)-len(strings.TrimLeft(t, c[:1]))]
		}
	}
	return ""
}

// markdownLine converts one line outside code blocks.
//
// Each expression runs only on a line holding the characters it needs: most
// lines hold none, and the expressions were a sixth of the CPU of
// generating OpenAI's client (its descriptions are long Markdown).
func markdownLine(l string, links *linkDefs) []string {
	switch lead := strings.TrimLeft(l, " "); {
	case strings.HasPrefix(lead, "#"):
		if m := mdHeading.FindStringSubmatch(l); m != nil {
			if h := inlineMarkdown(m[1], links); h != "" {
				return []string{"", "# " + h, ""}
			}
			return []string{""}
		}
	case strings.HasPrefix(lead, ">"):
		l = mdQuote.ReplaceAllString(l, "")
	}
	if lead := strings.TrimLeft(l, " "); lead != "" && strings.ContainsRune("-*_", rune(lead[0])) && mdBreak.MatchString(l) {
		return []string{""}
	}
	return []string{inlineMarkdown(l, links)}
}

// inlineMarkdown converts the inline constructs of one line.
func inlineMarkdown(l string, links *linkDefs) string {
	if strings.Contains(l, "![") {
		l = mdImage.ReplaceAllString(l, "$1")
	}
	if strings.Contains(l, "](") {
		l = mdLink.ReplaceAllStringFunc(l, func(m string) string {
			sub := mdLink.FindStringSubmatch(m)
			return links.add(sub[1], sub[2])
		})
	}
	if strings.Contains(l, "://") {
		l = mdAutolink.ReplaceAllString(l, "$1")
	}
	if strings.Contains(l, "**") || strings.Contains(l, "__") {
		l = mdStrong.ReplaceAllString(l, "$1$2")
	}
	return l
}

// linkDefs collects the link definitions of one text.
type linkDefs struct {
	defs []string
	urls map[string]string
}

// add returns what a link reads as in the text: "[text]" when it gets a
// definition, else its text (a relative URL, which a doc comment cannot
// link, or text already defined with another URL).
func (d *linkDefs) add(text, url string) string {
	text = strings.Join(strings.Fields(text), " ")
	if !absoluteURL.MatchString(url) || strings.ContainsAny(text, "[]") {
		return text
	}
	if d.urls == nil {
		d.urls = map[string]string{}
	}
	key := strings.ToLower(text)
	if u, ok := d.urls[key]; ok {
		if u == url {
			return "[" + text + "]"
		}
		return text + " (" + url + ")"
	}
	d.urls[key] = url
	d.defs = append(d.defs, "["+text+"]: "+url)
	return "[" + text + "]"
}

// linkDefLine reports whether line is a link definition, "[text]: url",
// returning the text.
func linkDefLine(line string) (string, bool) {
	if !strings.HasPrefix(line, "[") {
		return "", false
	}
	text, url, ok := strings.Cut(line[1:], "]: ")
	return text, ok && absoluteURL.MatchString(url)
}

// indented reports whether a line starts with white space.
func indented(l string) bool {
	return l != "" && (l[0] == ' ' || l[0] == '\t')
}
