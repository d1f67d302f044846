package wire

import (
	"github.com/idemgen/idemgen/runtime/internal/shared"

	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

var (
	bytesType  = reflect.TypeFor[[]byte]()
	readerType = reflect.TypeFor[io.Reader]()
	fileType   = reflect.TypeFor[File]()
)

// File is a binary multipart file part (the same type as idemrt.File).
type File = shared.File

// Piece is one part of a streamed body (see Request.Stream).
type Piece = shared.Piece

// partWriter is a multipart writer over a streamWriter.
type partWriter struct {
	*multipart.Writer
	sw *streamWriter
}

// streamWriter is where a multipart body is written: fixed bytes go to buf,
// and a caller's reader ends the current piece and becomes one of its own,
// so that file content is streamed by the engine and never copied here.
type streamWriter struct {
	buf    bytes.Buffer
	pieces []Piece
}

func (s *streamWriter) Write(p []byte) (int, error) { return s.buf.Write(p) }

// reader appends r as a piece of its own.
func (s *streamWriter) reader(r io.Reader) {
	s.flush()
	s.pieces = append(s.pieces, Piece{Reader: r})
}

// flush ends the current fixed piece.
func (s *streamWriter) flush() {
	if s.buf.Len() > 0 {
		s.pieces = append(s.pieces, Piece{Bytes: bytes.Clone(s.buf.Bytes())})
		s.buf.Reset()
	}
}

// EncodeMultipart encodes a struct as multipart/form-data and returns the
// body with its Content-Type (which carries the boundary). Each exported
// field with a JSON name becomes one part: []byte, File and io.Reader
// fields are file parts (readers read once here; Builder.MultipartBody
// streams them instead), scalars are text parts, lists of scalars repeat
// the part, anything else is a JSON part. An encoding's ContentType sets the
// part's Content-Type: a JSON type sends the whole value as one JSON part, a
// file part takes the type instead of application/octet-stream, a text part
// carries it. An encoding whose Style is StyleDeepObject (and that names no
// Content-Type) sends the value as bracketed text parts, a[b]=v and a[0]=x,
// the form body's deepObject convention. Members the type adds in its own MarshalJSON (additional
// properties) follow as parts of their own, sorted by name, so that none is
// dropped. Nil and omitempty-empty fields are left out.
func EncodeMultipart(v any, enc ...Encoding) ([]byte, string, error) {
	pieces, ct, err := encodeMultipart(v, enc)
	if err != nil {
		return nil, "", err
	}
	var out []byte
	for _, p := range pieces {
		b := p.Bytes
		if p.Reader != nil {
			if b, err = ReadBody(p.Reader); err != nil {
				return nil, "", err
			}
		}
		out = append(out, b...)
	}
	return out, ct, nil
}

// encodeMultipart encodes v as the pieces of a multipart body: one fixed
// piece when it has no reader content, else fixed pieces around each File
// or io.Reader field's content.
func encodeMultipart(v any, enc []Encoding) ([]Piece, string, error) {
	rv := reflect.Indirect(reflect.ValueOf(v))
	if rv.Kind() != reflect.Struct {
		return nil, "", fmt.Errorf("encoding multipart body: want a struct, got %T", v)
	}
	var sw streamWriter
	w := partWriter{multipart.NewWriter(&sw), &sw}
	t := rv.Type()
	declared := map[string]bool{}
	for i := range t.NumField() {
		name, omitEmpty, ok := jsonName(t.Field(i))
		if !ok {
			continue
		}
		declared[name] = true
		if omitEmpty && rv.Field(i).IsZero() {
			continue
		}
		if err := writeProperty(w, name, rv.Field(i), enc); err != nil {
			return nil, "", fmt.Errorf("encoding multipart field %q: %w", name, err)
		}
	}
	if err := writeExtraParts(w, rv, declared, enc); err != nil {
		return nil, "", err
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	sw.flush()
	return sw.pieces, w.FormDataContentType(), nil
}

// partType is the declared Content-Type of a property's part, the first of
// a list, or "" when the encoding names none.
func partType(enc []Encoding, name string) string {
	e := findEncoding(enc, name)
	if e == nil {
		return ""
	}
	first, _, _ := strings.Cut(e.ContentType, ",")
	return strings.TrimSpace(first)
}

var marshalerType = reflect.TypeFor[json.Marshaler]()

// writeExtraParts writes the members a struct's own MarshalJSON adds beyond
// its declared fields (a model's AdditionalProperties), sorted by name.
func writeExtraParts(w partWriter, rv reflect.Value, declared map[string]bool, enc []Encoding) error {
	if !rv.Type().Implements(marshalerType) && !reflect.PointerTo(rv.Type()).Implements(marshalerType) {
		return nil
	}
	b, err := json.Marshal(rv.Interface())
	if err != nil {
		return fmt.Errorf("encoding multipart body: %w", err)
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(b, &members) != nil {
		return nil // not an object: nothing beyond the fields
	}
	names := make([]string, 0, len(members))
	for k := range members {
		if !declared[k] {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		dec := json.NewDecoder(bytes.NewReader(members[k]))
		dec.UseNumber()
		var val any
		if err := dec.Decode(&val); err != nil {
			return err
		}
		if err := writeProperty(w, k, reflect.ValueOf(&val).Elem(), enc); err != nil {
			return fmt.Errorf("encoding multipart member %q: %w", k, err)
		}
	}
	return nil
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
	return name, strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero"), true
}

// writeProperty writes one property as the parts its encoding asks for: a
// deepObject encoding without a part Content-Type sends bracketed text parts
// (a[b]=v, a[0]=x), as form-decoding servers such as Stripe read multipart
// bodies; anything else is writePart's.
func writeProperty(w partWriter, name string, fv reflect.Value, enc []Encoding) error {
	e := findEncoding(enc, name)
	if e == nil || e.Style != StyleDeepObject || e.ContentType != "" || !fv.IsValid() {
		return writePart(w, name, fv, partType(enc, name))
	}
	if n, ok := fv.Interface().(shared.Nullish); ok && n.IsNull() {
		return textPart(w, name, "", "")
	}
	n, err := toNode(fv.Interface(), false)
	if err != nil {
		return err
	}
	for _, kv := range deepParts(name, n, nil) {
		if err := textPart(w, kv[0], kv[1], ""); err != nil {
			return err
		}
	}
	return nil
}

// deepParts appends the unescaped name and value of each scalar of n under
// key, with the deepObject convention of the query: objects nest as
// key[member], every list is indexed as key[i].
func deepParts(key string, n node, out [][2]string) [][2]string {
	switch n.kind {
	case nodeScalar:
		out = append(out, [2]string{key, n.scalar})
	case nodeObject:
		for i, k := range n.keys {
			out = deepParts(key+"["+k+"]", n.vals[i], out)
		}
	case nodeList:
		for i, el := range n.items {
			out = deepParts(key+"["+strconv.Itoa(i)+"]", el, out)
		}
	}
	return out
}

// writePart writes one field as one or more parts; ct is the declared
// Content-Type of its part ("" for the default of its kind).
func writePart(w partWriter, name string, fv reflect.Value, ct string) error {
	if (fv.Kind() == reflect.Pointer || fv.Kind() == reflect.Interface) && fv.IsNil() {
		return nil
	}
	if n, ok := fv.Interface().(shared.Nullish); ok && n.IsNull() {
		return textPart(w, name, "", ct) // an explicit null: an empty value
	}
	if fv.Kind() == reflect.Pointer && fv.Elem().Type() == fileType {
		fv = fv.Elem()
	}
	switch {
	case fv.Type() == bytesType:
		return filePart(w, name, fv.Bytes(), ct)
	case fv.Type() == fileType:
		f := fv.Interface().(File)
		if f.Content == nil {
			return nil
		}
		return streamPart(w, name, f.Name, f.ContentType, ct, f.Content)
	case fv.Type().Implements(readerType) || fv.Type() == readerType:
		return streamPart(w, name, name, "", ct, fv.Interface().(io.Reader))
	case ct != "" && shared.IsJSON(ct):
		return jsonPart(w, name, fv.Interface(), ct)
	}
	n, err := toNode(fv.Interface(), false)
	if err != nil {
		return err
	}
	switch n.kind {
	case nodeScalar:
		return textPart(w, name, n.scalar, ct)
	case nodeList:
		for _, s := range n.list {
			if err := textPart(w, name, s, ct); err != nil {
				return err
			}
		}
		return nil
	case nodeObject:
		if ct != "" {
			return fmt.Errorf("cannot encode an object as %s", ct)
		}
		return jsonPart(w, name, fv.Interface(), "application/json")
	}
	return nil
}

// dispositionParam escapes a name or file name for its quoted-string in
// Content-Disposition, the one place the part header is written, so that
// no value can end the line and add header lines of its own (the name and
// filename parameters of RFC 7578 4.2). As browsers do (the WHATWG HTML
// multipart/form-data encoding) it percent-encodes CR (%0D), LF (%0A) and
// the quote (%22), and also every
// other control character but HTAB (%00-%1F, %7F), which a header line
// cannot carry; a backslash is escaped as \\, so that a quoted-string
// parser (Go's mime.ParseMediaType) reads it back. "%" itself is sent as
// is, as browsers do: a server cannot tell %0A typed from a newline.
func dispositionParam(s string) string {
	if !strings.ContainsFunc(s, needsEscape) {
		return s
	}
	var b strings.Builder
	for i := range len(s) {
		switch c := s[i]; {
		case c == '\\':
			b.WriteString(`\\`)
		case needsEscape(rune(c)):
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// needsEscape reports whether r is escaped in a disposition parameter.
func needsEscape(r rune) bool {
	return r == '"' || r == '\\' || r < ' ' && r != '\t' || r == 0x7f
}

// partHeader is the header of a form-data part. A Content-Type with a
// control character is refused (ErrInvalidParam): escaping it would send
// another type than the one given.
func partHeader(name, filename, ct string) (textproto.MIMEHeader, error) {
	if strings.ContainsFunc(ct, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return nil, paramError(name, "the part's Content-Type %q has a control character", ct)
	}
	h := textproto.MIMEHeader{}
	disp := `form-data; name="` + dispositionParam(name) + `"`
	if filename != "" {
		disp += `; filename="` + dispositionParam(filename) + `"`
	}
	h.Set("Content-Disposition", disp)
	if ct != "" {
		h.Set("Content-Type", ct)
	}
	return h, nil
}

// writeNamedPart writes one part with its header.
func writeNamedPart(w partWriter, name, filename, ct string, b []byte) error {
	h, err := partHeader(name, filename, ct)
	if err != nil {
		return err
	}
	part, err := w.CreatePart(h)
	if err != nil {
		return err
	}
	_, err = part.Write(b)
	return err
}

// textPart writes a scalar as a text part, with its declared Content-Type
// when there is one (a plain form field otherwise).
func textPart(w partWriter, name, s, ct string) error {
	return writeNamedPart(w, name, "", ct, []byte(s))
}

// filePart writes binary content as a file part named after the field, with
// the declared Content-Type or application/octet-stream (also for a
// wildcard such as image/*, which names no type to send).
func filePart(w partWriter, name string, b []byte, ct string) error {
	if ct == "" || strings.Contains(ct, "*") {
		ct = "application/octet-stream"
	}
	return writeNamedPart(w, name, name, ct, b)
}

// streamPart writes a file part whose content r the engine streams: the
// part's header now, the content as a piece of its own. The file name is
// filename (the field name when empty), the type the file's own, else the
// declared one, else application/octet-stream.
func streamPart(w partWriter, name, filename, fileCT, ct string, r io.Reader) error {
	if fileCT != "" {
		ct = fileCT
	}
	if ct == "" || strings.Contains(ct, "*") {
		ct = "application/octet-stream"
	}
	if filename == "" {
		filename = name
	}
	h, err := partHeader(name, filename, ct)
	if err != nil {
		return err
	}
	if _, err := w.CreatePart(h); err != nil {
		return err
	}
	w.sw.reader(r)
	return nil
}

// jsonPart writes a value as a JSON part of type ct.
func jsonPart(w partWriter, name string, v any, ct string) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return writeNamedPart(w, name, "", ct, b)
}
