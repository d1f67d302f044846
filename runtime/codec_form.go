package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// EncodeForm encodes a struct or map as application/x-www-form-urlencoded.
// Member names and values follow the value's JSON form (so tags, omitempty and
// custom marshalers apply). Arrays of scalars repeat the key (the form style,
// exploded); nested objects use brackets, a[b]=v, and arrays of objects index
// them, a[0][b]=v, as most form-decoding servers expect. The properties
// named in deep have the deepObject encoding (as Stripe declares for its
// lists): their lists of scalars are indexed too, a[0]=x&a[1]=y.
func EncodeForm(v any, deep ...string) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding form body: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	w := formWriter{dec: dec, deep: deep}
	if err := w.value("", false); err != nil {
		return nil, fmt.Errorf("encoding form body: %w", err)
	}
	return []byte(strings.Join(w.pairs, "&")), nil
}

// formWriter walks one JSON document and collects the form pairs.
type formWriter struct {
	dec   *json.Decoder
	deep  []string
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
			deep = slices.Contains(w.deep, key)
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
		sub := formWriter{dec: json.NewDecoder(bytes.NewReader(raw)), deep: w.deep}
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

var (
	bytesType  = reflect.TypeFor[[]byte]()
	readerType = reflect.TypeFor[io.Reader]()
)

// EncodeMultipart encodes a struct as multipart/form-data and returns the
// body with its Content-Type (which carries the boundary). Each exported
// field with a JSON name becomes one part: []byte and io.Reader fields are
// file parts (application/octet-stream, read once), scalars are text parts,
// lists of scalars repeat the part, anything else is a JSON part. Nil and
// omitempty-empty fields are left out.
func EncodeMultipart(v any) ([]byte, string, error) {
	rv := reflect.Indirect(reflect.ValueOf(v))
	if rv.Kind() != reflect.Struct {
		return nil, "", fmt.Errorf("encoding multipart body: want a struct, got %T", v)
	}
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	t := rv.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, omitEmpty, ok := jsonName(f)
		if !ok || (omitEmpty && rv.Field(i).IsZero()) {
			continue
		}
		if err := writePart(w, name, rv.Field(i)); err != nil {
			return nil, "", fmt.Errorf("encoding multipart field %q: %w", name, err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), w.FormDataContentType(), nil
}

// jsonName returns a field's JSON member name and omitempty flag; ok is false
// for unexported and `json:"-"` fields.
func jsonName(f reflect.StructField) (name string, omitEmpty, ok bool) {
	if !f.IsExported() {
		return "", false, false
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false, false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name, strings.Contains(opts, "omitempty"), true
}

// writePart writes one field as one or more parts.
func writePart(w *multipart.Writer, name string, fv reflect.Value) error {
	if (fv.Kind() == reflect.Pointer || fv.Kind() == reflect.Interface) && fv.IsNil() {
		return nil
	}
	switch {
	case fv.Type() == bytesType:
		return filePart(w, name, fv.Bytes())
	case fv.Type().Implements(readerType) || fv.Type() == readerType:
		b, err := ReadBody(fv.Interface().(io.Reader))
		if err != nil {
			return err
		}
		return filePart(w, name, b)
	}
	n, err := toNode(fv.Interface(), false)
	if err != nil {
		return err
	}
	switch n.kind {
	case nodeScalar:
		return w.WriteField(name, n.scalar)
	case nodeList:
		for _, s := range n.list {
			if err := w.WriteField(name, s); err != nil {
				return err
			}
		}
		return nil
	case nodeObject:
		return jsonPart(w, name, fv.Interface())
	}
	return nil
}

// filePart writes binary content as a file part named after the field.
func filePart(w *multipart.Writer, name string, b []byte) error {
	part, err := w.CreateFormFile(name, name)
	if err != nil {
		return err
	}
	_, err = part.Write(b)
	return err
}

// jsonPart writes a value as an application/json part.
func jsonPart(w *multipart.Writer, name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q`, name))
	h.Set("Content-Type", "application/json")
	part, err := w.CreatePart(h)
	if err != nil {
		return err
	}
	_, err = part.Write(b)
	return err
}
