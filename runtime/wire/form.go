package wire

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Encoding is the encoding object of one property of a form or multipart
// body, as the document declares it. Generated code passes one literal per
// property whose encoding differs from the default.
type Encoding struct {
	// Property is the member name.
	Property string
	// ContentType is the media type of the property's part (multipart); a
	// list ("image/png, image/jpeg") sends the first.
	ContentType string
	// Style is StyleForm, StyleSpaceDelimited, StylePipeDelimited or
	// StyleDeepObject (forms). The zero Style is form, as for a property
	// without an Encoding: OpenAPI's rule for form bodies, not a guess.
	Style Style
	// Explode is the resolved explode flag (true is form's default).
	Explode bool
}

// findEncoding returns the encoding of a property, or nil.
func findEncoding(enc []Encoding, prop string) *Encoding {
	for i := range enc {
		if enc[i].Property == prop {
			return &enc[i]
		}
	}
	return nil
}

// EncodeForm encodes a struct or map as application/x-www-form-urlencoded.
// Member names and values follow the value's JSON form (so tags, omitempty and
// custom marshalers apply). Arrays of scalars repeat the key (the form style,
// exploded); nested objects use brackets, a[b]=v, and arrays of objects index
// them, a[0][b]=v, as most form-decoding servers expect. A property whose
// encoding is deepObject (as Stripe declares for its lists) has its lists of
// scalars indexed too, a[0]=x&a[1]=y; one whose encoding is form with
// explode false, spaceDelimited or pipeDelimited is one pair serialised as
// that query style: a=x,y, a=x%20y, a=x|y.
func EncodeForm(v any, enc ...Encoding) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding form body: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	w := formWriter{dec: dec, enc: enc}
	if err := w.value("", false); err != nil {
		return nil, fmt.Errorf("encoding form body: %w", err)
	}
	return []byte(strings.Join(w.pairs, "&")), nil
}

// formWriter walks one JSON document and collects the form pairs.
type formWriter struct {
	dec   *json.Decoder
	enc   []Encoding
	pairs []string
}

// value reads one JSON value and appends its pairs under name; index makes
// lists of scalars indexed (deepObject).
func (w *formWriter) value(name string, index bool) error {
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return w.object(name, index)
		}
		return w.array(name, index)
	case nil:
		return nil
	case string:
		w.add(name, url.QueryEscape(t))
	case json.Number:
		w.add(name, t.String())
	case bool:
		w.add(name, strconv.FormatBool(t))
	}
	return nil
}

// add appends name=escapedValue.
func (w *formWriter) add(name, escapedValue string) {
	w.pairs = append(w.pairs, url.QueryEscape(name)+"="+escapedValue)
}

// object appends the members of an object whose '{' was read.
func (w *formWriter) object(name string, index bool) error {
	for w.dec.More() {
		tok, err := w.dec.Token()
		if err != nil {
			return err
		}
		key := tok.(string)
		deep := index
		if name == "" {
			e := findEncoding(w.enc, key)
			if e != nil && styledFormProperty(e) {
				if err := w.styled(key, e); err != nil {
					return err
				}
				continue
			}
			deep = e != nil && e.Style == StyleDeepObject
		} else {
			key = name + "[" + key + "]"
		}
		if err := w.value(key, deep); err != nil {
			return err
		}
	}
	_, err := w.dec.Token()
	return err
}

// styledFormProperty reports whether a top-level property is serialised as
// one query-style pair (form unexploded, spaceDelimited, pipeDelimited)
// rather than by the bracket convention.
func styledFormProperty(e *Encoding) bool {
	switch e.Style {
	case 0, StyleForm:
		return !e.Explode
	case StyleSpaceDelimited, StylePipeDelimited:
		return true
	}
	return false
}

// styled reads the next value and appends it with the query rules of its
// encoding's style (the same serialisation as a query parameter).
func (w *formWriter) styled(key string, e *Encoding) error {
	n, err := decodeNode(w.dec)
	if err != nil {
		return err
	}
	pairs, err := queryPairs(Param{Name: key, Style: cmp.Or(e.Style, StyleForm), Explode: e.Explode}, n)
	w.pairs = append(w.pairs, pairs...)
	return err
}

// array appends the elements of an array whose '[' was read: scalars repeat
// the name (or are indexed under deepObject), objects and arrays are
// indexed.
func (w *formWriter) array(name string, index bool) error {
	for i := 0; w.dec.More(); i++ {
		// Decode the element whole to see whether it is a scalar, then walk
		// it with a decoder of its own.
		var raw json.RawMessage
		if err := w.dec.Decode(&raw); err != nil {
			return err
		}
		key := name
		if c := firstByte(raw); index || c == '{' || c == '[' {
			key = name + "[" + strconv.Itoa(i) + "]"
		}
		sub := formWriter{dec: json.NewDecoder(bytes.NewReader(raw)), enc: w.enc}
		sub.dec.UseNumber()
		if err := sub.value(key, index); err != nil {
			return err
		}
		w.pairs = append(w.pairs, sub.pairs...)
	}
	_, err := w.dec.Token()
	return err
}

// firstByte returns the first non-space byte of b, or 0.
func firstByte(b []byte) byte {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 {
		return 0
	}
	return b[0]
}
