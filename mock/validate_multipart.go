package mock

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
)

// maxParts bounds the parts read from one multipart body.
const maxParts = 10000

// validateMultipart checks a multipart body by reading it here, as a form
// is read: kin-openapi's decoder takes a nested part name (expand[0],
// file_link_data[create]: a deepObject encoding, as Stripe's clients and
// ours send it) for a property of its own, unknown to the schema, reads a
// text part whose schema has no type (OpenAI's model: anyOf of a string
// and an enumeration) as null, and stops at a part in a media type it
// cannot decode (text/markdown). A body that is not well-formed multipart
// is left to kin-openapi, with the required parts checked here.
func validateMultipart(rt *route, media *openapi3.MediaType, ct string, body []byte, opts *openapi3filter.Options) []FieldError {
	form, ok := readParts(media, ct, body)
	if !ok {
		return missingParts(media, ct, body)
	}
	opts.ExcludeRequestBody = true
	return validateFormValue(rt, media, form)
}

// readParts reads a multipart body into the value its parts stand for,
// as decodeForm reads a form: a file part is its content, a JSON part (by
// its Content-Type, else its encoding's) its decoded value, any other part
// its text; a nested name (a[b], a[0]) builds the object or list.
func readParts(media *openapi3.MediaType, ct string, body []byte) (map[string]any, bool) {
	_, params, err := mime.ParseMediaType(ct)
	if err != nil || params["boundary"] == "" {
		return nil, false
	}
	form := map[string]any{}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for n := 0; ; n++ {
		p, err := mr.NextPart()
		if err == io.EOF {
			return form, true
		}
		if err != nil || n == maxParts {
			return nil, false
		}
		path, pathOK := formPath(p.FormName())
		data, err := io.ReadAll(p)
		if !pathOK || err != nil {
			return nil, false
		}
		insertForm(form, path, partValue(p, data, encodingType(media, path[0])))
	}
}

// encodingType is the content type the media type's encoding declares for
// a property, if any.
func encodingType(media *openapi3.MediaType, name string) string {
	if e := media.Encoding[name]; e != nil {
		return e.ContentType
	}
	return ""
}

// partValue is what one part carries: a JSON part's decoded value, else
// its bytes as text.
func partValue(p *multipart.Part, data []byte, declared string) any {
	ct := p.Header.Get("Content-Type")
	if ct == "" {
		ct = declared
	}
	if p.FileName() == "" && isJSON(mediaBase(ct)) {
		var v any
		if json.Unmarshal(data, &v) == nil {
			return v
		}
	}
	return string(data)
}
