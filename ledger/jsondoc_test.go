package ledger

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// jsonSeeds are documents where a hand-written canonicaliser or name check
// could part from encoding/json's: escapes of every kind, U+2028, HTML
// characters, duplicates and case-folded names, big objects, deep nesting.
var jsonSeeds = []string{
	`{"b":1,"a":[true,null,"x"]}`, `[1,2.5e-3,-0,1E+5]`, `"\ud83d\ude00"`, `{}`, `[]`, `[[],{}]`,
	`{"a":1,"A":2}`, `{"a":1,"a":2}`, `{"a":1,"b":2,"a":3}`, `"\ud800\\u"`, "\"\xff\"", `"\u12"`,
	`"\u0000\u001f\u007f\b\f\n\r\t\/\\\""`, "\"\u2028\u2029 raw\"", `"\u2028\u2029"`, `"<a&b>\u003c"`,
	`{"\u0061":1,"a":2}`, `{"\u00e9":1,"é":2,"e":3}`, `{"K":1,"\u212a":2}`, `{"s":1,"ſ":2}`,
	`{"x":{"y":[{"k":1,"\u212a":2}]}}`, `{"a/b":{"c~d":{"E":1,"e":2}}}`, " \t\n[ 1 ,\r\"a\" ] ",
	`{"é":"\u00e9","a":"\n"}`, `{"z":{"b":[3,{"y":null,"x":true}]},"a":"s"}`, `1 2`, `{"a":1}x`,
	`{"Ω":1,"ω2":2}`, `{"ǅ":1,"ǆ":2}`, `{"ß":1,"ẞ":2}`, `"\uDBFF\uDFFF"`, `{"\ud83d\ude00":1}`,
	manyMembers(20, 15), manyMembers(9, 0), manyMembers(30, -1), strings.Repeat("[", 300) + strings.Repeat("]", 300),
	strings.Repeat(`{"b":1,"a":`, 200) + "0" + strings.Repeat("}", 200),
}

// manyMembers is an object of n members whose member dup (if >= 0) has
// the name of member 3 in upper case.
func manyMembers(n, dup int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		name := "m" + strconv.Itoa(n-i)
		if i == dup {
			name = strings.ToUpper("m" + strconv.Itoa(n-3))
		}
		fmt.Fprintf(&b, "%q:%d", name, i)
	}
	b.WriteString("}")
	return b.String()
}

// FuzzCanonicalJSONMatchesDecoded: the one-pass canonical form is the one
// encoding/json's decode and encode write, for any bytes, so fingerprints
// stored by earlier versions still match.
func FuzzCanonicalJSONMatchesDecoded(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := CanonicalJSON(in)
		want, werr := canonicalDecoded(in)
		if (err == nil) != (werr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("CanonicalJSON(%q) = %q, %v; encoding/json gives %q, %v", in, got, err, want, werr)
		}
	})
}

// FuzzCheckJSONMatchesDecoded: the one-pass name check finds what the
// token-by-token walk through encoding/json finds, with the same message.
func FuzzCheckJSONMatchesDecoded(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, want := fmt.Sprint(CheckJSON(in)), fmt.Sprint(checkJSONDecoded(in))
		if got != want {
			t.Fatalf("CheckJSON(%q) = %s; the decoder's walk gives %s", in, got, want)
		}
	})
}

// TestFingerprintUnchanged pins fingerprints computed before the one-pass
// path existed: a key stored then must still match its retry.
func TestFingerprintUnchanged(t *testing.T) {
	for _, tc := range []struct {
		ct, body string
		fields   []string
		want     string
	}{
		{"application/json", `{"items":[{"sku":"b","qty":2}],"customerId":"c\u00e9"}`, nil,
			"622b5cbeda4c74f31e7a9b011326b9cb08e98ef6a07aa69f9301e05d38adb77c"},
		{"", ` {"b":"\u2028<&>","a":[1.0,-0,1e3]} `, []string{"X-Account\x00acc_1"},
			"9dd209a714a07bf07047b5c84cb87433abca91e3fc1056c0c1947d7551d561da"},
		{"text/plain", "raw body", nil,
			"668e870173839f80f32504131644bce7116dd1d16ebc017a493bf4540e84b007"},
		{"application/json", `{"a":1,"a":2}`, nil,
			"835f735f7c0085246e55f8fb07adf7b1fd3193fe93043c802d33740d204dbd7f"},
	} {
		if got := Fingerprint("POST", "createOrder", "/orders?x=1", tc.ct, []byte(tc.body), tc.fields...); got != tc.want {
			t.Errorf("Fingerprint(%q, %q) = %s, want %s", tc.ct, tc.body, got, tc.want)
		}
	}
}

// checkJSONDecoded is CheckJSON as it was written on encoding/json's
// tokens, the reference the one-pass check is held to.
func checkJSONDecoded(body []byte) error {
	if !json.Valid(body) {
		return nil
	}
	if !utf8.Valid(body) {
		return fmt.Errorf("%w: the body is not valid UTF-8", ErrAmbiguousBody)
	}
	if err := checkSurrogates(body); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	return checkNamesDecoded(dec, "")
}

// checkNames walks one value; path is its JSON pointer, for the message.
func checkNamesDecoded(dec *json.Decoder, path string) error {
	tok, err := dec.Token()
	if err != nil {
		return nil // unreachable after json.Valid
	}
	switch tok {
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := checkNamesDecoded(dec, path+"/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
	case json.Delim('{'):
		seen := map[string]string{}
		for dec.More() {
			nt, _ := dec.Token()
			name, _ := nt.(string)
			fold := strings.ToLower(strings.ToUpper(name))
			if prev, dup := seen[fold]; dup {
				return fmt.Errorf("%w: the object at %q has the members %q and %q, which a decoder may take for one",
					ErrAmbiguousBody, clip(path), clip(prev), clip(name))
			}
			seen[fold] = name
			if err := checkNamesDecoded(dec, path+"/"+pointerEscape(name)); err != nil {
				return err
			}
		}
	default:
		return nil
	}
	dec.Token() // the closing delimiter
	return nil
}
