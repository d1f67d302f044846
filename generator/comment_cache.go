package generator

import (
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

// newDocCache returns an empty cache.
func newDocCache() *docCache {
	return &docCache{paras: map[paraKey][]string{}, texts: map[string]string{}}
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
