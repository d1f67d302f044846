package idemsrv

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/idemgen/idemgen/runtime/problem"
	"github.com/idemgen/idemgen/runtime/wire"
)

// Bounds of a multipart body beyond its size (WithMaxBody): how many parts
// it may have and how large one part's header may be.
const (
	maxParts      = 1000
	maxPartHeader = 16 << 10
)

// PartError is a part of a multipart body that could not be read into its
// field; it is answered 400, naming the part.
type PartError struct {
	Part string
	Err  error
}

func (e *PartError) Error() string { return fmt.Sprintf("multipart part %q: %v", e.Part, e.Err) }

func (e *PartError) Unwrap() error { return e.Err }

// formPart is one part as it arrived, its name and file name unescaped.
type formPart struct {
	name, filename, ctype string
	data                  []byte
}

var (
	fileType   = reflect.TypeFor[wire.File]()
	bytesType  = reflect.TypeFor[[]byte]()
	readerType = reflect.TypeFor[io.Reader]()
)

// Multipart decodes a multipart/form-data body into dst, the way
// wire.EncodeMultipart writes it: file parts into idemrt.File fields (the
// content buffered, within WithMaxBody, as a bytes.Reader), []byte and
// io.Reader fields; JSON parts (a JSON Content-Type or encoding) as JSON;
// text parts as form values, repeated for lists and bracketed (a[b]=v,
// a[0]=x) under deepObject; parts no field declares into the type's
// additional properties. Names and file names are unescaped as the client
// escapes them (%0D, %0A, %22 and the other control characters).
func (d *Request) Multipart(dst any, required bool, enc ...wire.Encoding) {
	b, ok := d.readBody()
	if !ok || !d.present(b, required) {
		return
	}
	mt, params, err := mime.ParseMediaType(d.r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		d.fail(http.StatusUnsupportedMediaType, problem.UnsupportedMedia, errors.New("the body must be multipart/form-data with a boundary"))
		return
	}
	parts, err := readParts(b, params["boundary"])
	if err == nil {
		err = decodeInto(parts, reflect.ValueOf(dst).Elem(), enc, d.e.cfg.maxDepth)
	}
	if err != nil {
		d.fail(http.StatusBadRequest, problem.BadRequest, err)
	}
}

// readParts splits the body into its parts, within the part bounds.
func readParts(b []byte, boundary string) ([]formPart, error) {
	mr := multipart.NewReader(bytes.NewReader(b), boundary)
	var out []formPart
	for {
		p, err := mr.NextRawPart()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("the multipart body is malformed: %w", err)
		}
		if len(out) == maxParts {
			return nil, fmt.Errorf("the multipart body has more than %d parts", maxParts)
		}
		fp, err := readPart(p)
		if err != nil {
			return nil, err
		}
		out = append(out, fp)
	}
}

// readPart reads one part's disposition, type and content.
func readPart(p *multipart.Part) (formPart, error) {
	size := 0
	for k, vs := range p.Header {
		for _, v := range vs {
			size += len(k) + len(v)
		}
	}
	if size > maxPartHeader {
		return formPart{}, fmt.Errorf("a part's header is larger than %d bytes", maxPartHeader)
	}
	disp, params, err := mime.ParseMediaType(p.Header.Get("Content-Disposition"))
	if err != nil || disp != "form-data" || params["name"] == "" {
		return formPart{}, errors.New("a part has no form-data Content-Disposition with a name")
	}
	data, err := io.ReadAll(p)
	if err != nil {
		return formPart{}, fmt.Errorf("the multipart body is malformed: %w", err)
	}
	return formPart{name: unescapeDisposition(params["name"]), filename: unescapeDisposition(params["filename"]),
		ctype: p.Header.Get("Content-Type"), data: data}, nil
}

// unescapeDisposition reverses the client's escaping of a disposition
// parameter: %XX for the control characters and the quote, nothing else (a
// "%" the client sent as is stays).
func unescapeDisposition(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isUpperHex(s[i+1:i+3]) {
			if n, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil && escapedByClient(byte(n)) {
				b.WriteByte(byte(n))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// escapedByClient reports whether the client writes c as %XX.
func escapedByClient(c byte) bool {
	return c == '"' || c < ' ' && c != '\t' || c == 0x7f
}

// isUpperHex reports whether s is hex digits as the client writes them
// (%02X: upper case).
func isUpperHex(s string) bool {
	return strings.ToUpper(s) == s
}

// decodeInto decodes the parts into rv, a struct or (an optional body) a
// pointer to one that it sets.
func decodeInto(parts []formPart, rv reflect.Value, enc []wire.Encoding, maxDepth int) error {
	if rv.Kind() != reflect.Pointer {
		return decodeParts(parts, rv, enc, maxDepth)
	}
	nv := reflect.New(rv.Type().Elem())
	if err := decodeInto(parts, nv.Elem(), enc, maxDepth); err != nil {
		return err
	}
	rv.Set(nv)
	return nil
}

// decodeParts places the parts into the struct rv: files directly, the
// other parts through one JSON document, so that the model's own JSON
// decoding (nullable fields, unions, additional properties) applies.
func decodeParts(parts []formPart, rv reflect.Value, enc []wire.Encoding, maxDepth int) error {
	t := rv.Type()
	if t.Kind() != reflect.Struct {
		return fmt.Errorf("a multipart body cannot be read into a %s", t)
	}
	fields := jsonFields(t)
	files := map[int]formPart{}
	raws := map[string]json.RawMessage{}
	root := value{present: true, isObj: true}
	for _, p := range parts {
		if i, ok := fields[p.name]; ok && isFileField(t.Field(i).Type) {
			if _, dup := files[i]; dup {
				return &PartError{Part: p.name, Err: errors.New("the file part is repeated")}
			}
			files[i] = p
			continue
		}
		base, rest, _ := strings.Cut(p.name, "[")
		if rest == "" && (isJSON(p.ctype) || isJSON(encodingType(enc, p.name))) {
			if err := checkDepth(p.data, maxDepth); err != nil || !json.Valid(p.data) {
				return &PartError{Part: p.name, Err: cmpErr(err, errors.New("the part is not valid JSON"))}
			}
			raws[p.name] = p.data
			continue
		}
		keys := []string{base}
		if rest != "" {
			more, ok := bracketKeys("[" + rest)
			if !ok || len(more) > maxDeepDepth {
				return &PartError{Part: p.name, Err: errors.New("the part name is not written a[b][c]")}
			}
			keys = append(keys, more...)
		}
		insert(&root, keys, string(p.data))
	}
	if err := unmarshalParts(root, raws, rv); err != nil {
		return err
	}
	for i, p := range files {
		setFile(rv.Field(i), p)
	}
	return nil
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// encodingType is the Content-Type an encoding declares for a property.
func encodingType(enc []wire.Encoding, name string) string {
	if e := findEncoding(enc, name); e != nil {
		first, _, _ := strings.Cut(e.ContentType, ",")
		return strings.TrimSpace(first)
	}
	return ""
}

// isFileField reports whether the client sends a field of type t as a
// file part.
func isFileField(t reflect.Type) bool {
	return t == fileType || t == reflect.PointerTo(fileType) || t == bytesType || t == readerType
}

// setFile stores a file part into its field.
func setFile(fv reflect.Value, p formPart) {
	switch fv.Type() {
	case bytesType:
		fv.SetBytes(p.data)
	case readerType:
		fv.Set(reflect.ValueOf(bytes.NewReader(p.data)))
	default:
		f := wire.File{Name: p.filename, ContentType: p.ctype, Content: bytes.NewReader(p.data)}
		if fv.Kind() == reflect.Pointer {
			fv.Set(reflect.ValueOf(&f))
			return
		}
		fv.Set(reflect.ValueOf(f))
	}
}

// unmarshalParts writes the text parts as the JSON of the struct's members
// (members it does not declare typed as its additional properties), adds
// the JSON parts, and decodes the document into rv.
func unmarshalParts(root value, raws map[string]json.RawMessage, rv reflect.Value) error {
	t := rv.Type()
	fields := jsonFields(t)
	extra := extraType(t)
	doc := map[string]json.RawMessage{}
	for _, m := range root.members {
		ft := extra
		if i, ok := fields[m.key]; ok {
			ft = t.Field(i).Type
		}
		if ft == nil {
			continue
		}
		var buf bytes.Buffer
		if err := writeJSON(&buf, m.val, ft, 0); err != nil {
			return &PartError{Part: m.key, Err: err}
		}
		doc[m.key] = buf.Bytes()
	}
	for k, v := range raws {
		doc[k] = v
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, rv.Addr().Interface()); err != nil {
		return partError(err)
	}
	return nil
}

// extraType is the value type of a struct's AdditionalProperties map, or
// nil when it has none.
func extraType(t reflect.Type) reflect.Type {
	f, ok := t.FieldByName("AdditionalProperties")
	if ok && f.Type.Kind() == reflect.Map && f.Type.Key().Kind() == reflect.String {
		return f.Type.Elem()
	}
	return nil
}

// partError names the part a JSON decoding error is about: the first
// member of its field path.
func partError(err error) error {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && typeErr.Field != "" {
		name, _, _ := strings.Cut(typeErr.Field, ".")
		return &PartError{Part: name, Err: fmt.Errorf("the value at %q is a %s where the schema wants %s", typeErr.Field, typeErr.Value, typeErr.Type)}
	}
	return errors.New("the multipart body does not match the schema")
}
