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

// validateMultipart checks a multipart body. One whose part names nest
// (expand[0], link[pages]: a deepObject encoding, as Stripe's clients and
// ours send it) is read and validated here, as a form is: kin-openapi's
// decoder takes each nested name for a property of its own, unknown to the
// schema. Any other is left to kin-openapi, with the required parts
// checked here whatever it reads (it stops at the first part it cannot
// decode).
func validateMultipart(media *openapi3.MediaType, ct string, body []byte, opts *openapi3filter.Options) []FieldError {
	form, nested, ok := nestedParts(ct, body)
	if !nested || !ok {
		return missingParts(media, ct, body)
	}
	opts.ExcludeRequestBody = true
	return validateFormValue(media, form)
}

// nestedParts reads a multipart body into the value its parts stand for,
// as decodeForm reads a form: a file part is its content, a JSON part (by
// its Content-Type) its decoded value, any other part its text. nested is
// false, and nothing is built, when no part name nests.
func nestedParts(ct string, body []byte) (form map[string]any, nested, ok bool) {
	_, params, err := mime.ParseMediaType(ct)
	if err != nil || params["boundary"] == "" {
		return nil, false, false
	}
	type part struct {
		path []string
		v    any
	}
	var parts []part
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for n := 0; n < maxParts; n++ {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nested, false
		}
		path, pathOK := formPath(p.FormName())
		data, err := io.ReadAll(p)
		if !pathOK || err != nil {
			return nil, nested, false
		}
		nested = nested || len(path) > 1
		parts = append(parts, part{path, partValue(p, data)})
	}
	if !nested {
		return nil, false, true
	}
	form = map[string]any{}
	for _, p := range parts {
		if s, isText := p.v.(string); isText || len(p.path) > 1 {
			insertForm(form, p.path, asText(p.v, s))
			continue
		}
		form[p.path[0]] = p.v
	}
	return form, true, true
}

// partValue is what one part carries: a JSON part's decoded value, else
// its bytes as text.
func partValue(p *multipart.Part, data []byte) any {
	if p.FileName() == "" && isJSON(mediaBase(p.Header.Get("Content-Type"))) {
		var v any
		if json.Unmarshal(data, &v) == nil {
			return v
		}
	}
	return string(data)
}

// asText is a part's value as form text: s when it is text, else its JSON.
func asText(v any, s string) string {
	if _, isText := v.(string); isText {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
