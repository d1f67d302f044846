package parser

import (
	"go/token"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// initialisms are the words Go spells in one case ("ID", not "Id"), after
// the list golint and gopls use, plus a few API staples (UUID, JWT, SKU).
var initialisms = map[string]bool{
	"ACL": true, "API": true, "ASCII": true, "CPU": true, "CSS": true, "CSV": true, "DNS": true,
	"EOF": true, "GUID": true, "HTML": true, "HTTP": true, "HTTPS": true, "ID": true, "IP": true,
	"JSON": true, "JWT": true, "LHS": true, "OS": true, "QPS": true, "RAM": true, "RHS": true,
	"RPC": true, "SKU": true, "SLA": true, "SMS": true, "SMTP": true, "SQL": true, "SSH": true,
	"TCP": true, "TLS": true, "TTL": true, "UDP": true, "UI": true, "UID": true, "URI": true,
	"URL": true, "UTF8": true, "UUID": true, "VM": true, "XML": true, "XMPP": true, "XSRF": true,
	"XSS": true,
}

// symbolWords spell out characters that carry meaning in wire names, so that
// Twilio's `StartTime`, `StartTime<` and `StartTime>` become three distinct
// fields (StartTime, StartTimeLt, StartTimeGt) rather than one name and two
// collision suffixes.
var symbolWords = map[rune]string{
	'<': "Lt", '>': "Gt", '=': "Eq", '!': "Not", '+': "Plus", '@': "At", '*': "Star",
}

// GoName turns a wire name (operationId, property, parameter, header, schema
// name) into an exported Go identifier: words are split at punctuation and
// camelCase boundaries, capitalised, and initialisms are upper-cased
// (payment_id -> PaymentID, If-Match -> IfMatch). A name that would start
// with a digit gets an "N" prefix; a name with no letters or digits at all
// becomes "X". The result never collides with a Go keyword because it is
// exported.
func GoName(s string) string {
	return goNames.get(s)
}

// goNames remembers GoName's answers: a document names the same property,
// parameter and header again and again (Twilio's 197 operations spell out
// the same few hundred names thousands of times), and splitting a name costs
// several allocations.
var goNames = &nameCache{m: map[string]string{}}

// nameCache is a bounded memo of goName, safe for concurrent loads; it
// starts over when full rather than grow without end.
type nameCache struct {
	mu sync.Mutex
	m  map[string]string
}

const nameCacheSize = 1 << 16

func (c *nameCache) get(s string) string {
	c.mu.Lock()
	v, ok := c.m[s]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = goName(s)
	c.mu.Lock()
	if len(c.m) >= nameCacheSize {
		clear(c.m)
	}
	c.m[s] = v
	c.mu.Unlock()
	return v
}

func goName(s string) string {
	var b strings.Builder
	for _, w := range splitWords(s) {
		b.WriteString(capitalise(w))
	}
	name := b.String()
	switch {
	case name == "":
		return "X"
	case name[0] >= '0' && name[0] <= '9':
		return "N" + name
	}
	return name
}

// goNameOf is GoName for a name already built from GoNames (an inline type's
// hint, "Order"+"Shipping"): it is returned as is when it is an exported
// identifier, which saves re-splitting long names on large documents.
func goNameOf(s string) string {
	if token.IsIdentifier(s) && token.IsExported(s) {
		return s
	}
	return GoName(s)
}

// lowerGoName is GoName with the first word in lower case ("createOrder",
// "idempotencyKey", "id"): the form of an unexported identifier.
func lowerGoName(s string) string {
	name := GoName(s)
	words := splitWords(name)
	if len(words) == 0 {
		return "x"
	}
	return strings.ToLower(words[0]) + strings.TrimPrefix(name, capitalise(words[0]))
}

// splitWords cuts s into words at every character that is not a letter or a
// digit (symbolWords become words of their own) and at camelCase boundaries:
// "createPayment" -> create Payment, "HTTPServer" -> HTTP Server.
func splitWords(s string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	runes := []rune(s)
	for i, r := range runes {
		if !isWordRune(r) {
			flush()
			if w, ok := symbolWords[r]; ok {
				words = append(words, w)
			}
			continue
		}
		if len(cur) > 0 && camelBoundary(runes, i) {
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

func isWordRune(r rune) bool {
	return r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// camelBoundary reports whether a new word starts at runes[i]: a lower-case
// letter or digit followed by an upper-case one (createPayment), or the last
// capital of an upper-case run followed by a lower-case letter (HTTPServer).
func camelBoundary(runes []rune, i int) bool {
	prev, r := runes[i-1], runes[i]
	if !unicode.IsUpper(r) {
		return false
	}
	if unicode.IsLower(prev) || unicode.IsDigit(prev) {
		return true
	}
	return unicode.IsUpper(prev) && i+1 < len(runes) && unicode.IsLower(runes[i+1])
}

// capitalise writes one word as Go spells it: an initialism in upper case
// (id -> ID, ids -> IDs), anything else with a leading capital and the rest
// as written (eTag stays readable as ETag after splitting).
func capitalise(w string) string {
	up := strings.ToUpper(w)
	if initialisms[up] {
		return up
	}
	if strings.HasSuffix(up, "S") && len(up) > 2 && initialisms[up[:len(up)-1]] {
		return up[:len(up)-1] + "s"
	}
	rest := w[1:]
	if strings.ToUpper(rest) == rest {
		// An all-caps word that is not an initialism ("STATUS") reads better
		// as a normal word.
		rest = strings.ToLower(rest)
	}
	return strings.ToUpper(w[:1]) + rest
}

// namer hands out identifiers that are unique within one scope. Collisions are
// resolved by appending 2, 3, ... in the order names are requested, so callers
// must request them in a deterministic order.
type namer struct {
	used map[string]bool
}

func newNamer(reserved ...string) *namer {
	n := &namer{used: make(map[string]bool)}
	for _, r := range reserved {
		n.used[r] = true
	}
	return n
}

// unique returns base, or base with the smallest numeric suffix that makes it
// unused, and marks the result used.
func (n *namer) unique(base string) string {
	name := base
	for i := 2; n.used[name]; i++ {
		name = base + strconv.Itoa(i)
	}
	n.used[name] = true
	return name
}
