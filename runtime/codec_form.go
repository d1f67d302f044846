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
	"strconv"
	"strings"
)

// EncodeForm encodes a struct or map as application/x-www-form-urlencoded.
// Member names and values follow the value's JSON form (so tags, omitempty and
// custom marshalers apply). Arrays of scalars repeat the key (the form style,
// exploded); nested objects use brackets, a[b]=v, and arrays of objects index
// them, a[0][b]=v, as most form-decoding servers expect.
func EncodeForm(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding form body: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var pairs []string
	if err := formValue(dec, "", &pairs); err != nil {
		return nil, fmt.Errorf("encoding form body: %w", err)
	}
	return []byte(strings.Join(pairs, "&")), nil
}

// formValue reads one JSON value from dec and appends its pairs under name.
func formValue(dec *json.Decoder, name string, pairs *[]string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return formObject(dec, name, pairs)
		}
		return formArray(dec, name, pairs)
	case nil:
		return nil
	case string:
		*pairs = append(*pairs, url.QueryEscape(name)+"="+url.QueryEscape(t))
	case json.Number:
		*pairs = append(*pairs, url.QueryEscape(name)+"="+t.String())
	case bool:
		*pairs = append(*pairs, url.QueryEscape(name)+"="+strconv.FormatBool(t))
	}
	return nil
}

// formObject appends the members of an object whose '{' was read.
func formObject(dec *json.Decoder, name string, pairs *[]string) error {
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key := tok.(string)
		if name != "" {
			key = name + "[" + key + "]"
		}
		if err := formValue(dec, key, pairs); err != nil {
			return err
		}
	}
	_, err := dec.Token()
	return err
}

// formArray appends the elements of an array whose '[' was read: scalars
// repeat the name, objects and arrays get an index.
func formArray(dec *json.Decoder, name string, pairs *[]string) error {
	for i := 0; dec.More(); i++ {
		// Peek by decoding into a raw message, then re-decode: elements are
		// small and this keeps scalars and composites apart.
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		key := name
		if c := firstByte(raw); c == '{' || c == '[' {
			key = name + "[" + strconv.Itoa(i) + "]"
		}
		sub := json.NewDecoder(bytes.NewReader(raw))
		sub.UseNumber()
		if err := formValue(sub, key, pairs); err != nil {
			return err
		}
	}
	_, err := dec.Token()
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
