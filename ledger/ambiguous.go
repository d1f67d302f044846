package ledger

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrAmbiguousBody marks a JSON request body that two readers could decode
// differently, so that one fingerprint would stand for two requests. The
// middleware answers it 400 (problem.AmbiguousBody) before touching the ledger.
var ErrAmbiguousBody = errors.New("ledger: ambiguous JSON body")

// CheckJSON reports why body, a JSON value, is ambiguous: it is not valid
// UTF-8, it escapes a lone UTF-16 surrogate (both collapse to U+FFFD when
// decoded, so "\xff" and "\xfe" would look alike), or an object at any depth
// has two member names that are equal or differ only in case (Go's
// encoding/json matches names case-insensitively, and which duplicate wins
// depends on the order). A body that is not JSON at all is not ambiguous: it
// is fingerprinted as raw bytes. Nesting is bounded by encoding/json's own
// limit (json.Valid refuses deeper documents, which are then hashed raw).
func CheckJSON(body []byte) error {
	_, err := checkJSONDoc(body)
	return err
}

// checkJSONDoc is CheckJSON that hands back the parsed document for its
// canonical form: nil, without an error, when the body is not JSON.
func checkJSONDoc(body []byte) (*jsonDoc, error) {
	if !json.Valid(body) {
		return nil, nil
	}
	if !utf8.Valid(body) {
		return nil, fmt.Errorf("%w: the body is not valid UTF-8", ErrAmbiguousBody)
	}
	if err := checkSurrogates(body); err != nil {
		return nil, err
	}
	d, err := newJSONDoc(body, true)
	if e, ok := err.(*dupNameError); ok {
		return nil, e.ambiguous()
	}
	return d, err
}

// checkSurrogates finds \u escapes of a surrogate that is not half of a
// pair. Backslashes occur only inside strings in valid JSON, so a linear scan
// that steps over every escape sees each one exactly once.
func checkSurrogates(b []byte) error {
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		i++
		if b[i] != 'u' {
			continue
		}
		r := hex4(b[i+1:])
		i += 4
		if !utf16.IsSurrogate(r) {
			continue
		}
		if r < 0xdc00 && len(b) >= i+7 && b[i+1] == '\\' && b[i+2] == 'u' {
			if lo := hex4(b[i+3:]); lo >= 0xdc00 && lo <= 0xdfff {
				i += 6
				continue
			}
		}
		return fmt.Errorf("%w: \\u%04x is half of a UTF-16 surrogate pair", ErrAmbiguousBody, r)
	}
	return nil
}

func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	n, err := strconv.ParseUint(string(b[:4]), 16, 32)
	if err != nil {
		return -1
	}
	return rune(n)
}

func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// clip bounds what a message quotes of the request.
func clip(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
