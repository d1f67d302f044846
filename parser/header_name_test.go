package parser

import (
	"strconv"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/ir"
)

// hostileHeaderNames are names net/http refuses to send (or that smuggle a
// second header), each written as a YAML double-quoted scalar.
var hostileHeaderNames = map[string]string{
	"crlf":      `"X-A\r\nEvil: 1"`,
	"lf":        `"X-A\nB"`,
	"space":     `"X A"`,
	"colon":     `"X:A"`,
	"empty":     `""`,
	"non-ascii": `"X-Ключ"`,
}

// headerNameSites places NAME where the parser reads a header (or cookie)
// name; pointer is where the error must point.
var headerNameSites = []struct {
	site, spec, pointer, rule string
}{
	{"header parameter", `
paths:
  /orders:
    get:
      operationId: listOrders
      parameters:
        - {name: NAME, in: header, schema: {type: string}}
      responses: {"200": {description: ok}}`, "/paths/~1orders/get/parameters/0/name", ruleHeaderName},
	{"cookie parameter", `
paths:
  /orders:
    get:
      operationId: listOrders
      parameters:
        - {name: NAME, in: cookie, schema: {type: string}}
      responses: {"200": {description: ok}}`, "/paths/~1orders/get/parameters/0/name", ruleHeaderName},
	{"path item header parameter", `
paths:
  /orders:
    parameters:
      - {name: NAME, in: header, schema: {type: string}}
    get:
      operationId: listOrders
      responses: {"200": {description: ok}}`, "/paths/~1orders/parameters/0/name", ruleHeaderName},
	{"response header", `
paths:
  /orders:
    get:
      operationId: listOrders
      responses:
        "200":
          description: ok
          headers:
            NAME: {schema: {type: string}}`, "/paths/~1orders/get/responses/200/headers/NAME", ruleHeaderName},
	{"apiKey in header", `
paths:
  /orders:
    get:
      operationId: listOrders
      security: [{key: []}]
      responses: {"200": {description: ok}}
components:
  securitySchemes:
    key: {type: apiKey, in: header, name: NAME}`, "/components/securitySchemes/key/name", ruleHeaderName},
	{"apiKey in cookie", `
paths:
  /orders:
    get:
      operationId: listOrders
      responses: {"200": {description: ok}}
components:
  securitySchemes:
    key: {type: apiKey, in: cookie, name: NAME}`, "/components/securitySchemes/key/name", ruleHeaderName},
	{"idempotency key", `
paths:
  /orders:
    post:
      operationId: createOrder
      x-idempotent: {key: {in: header, name: NAME}}
      responses: {"201": {description: ok}}`, "/paths/~1orders/post/x-idempotent/key/name", ruleIdempotentKey},
}

// unusable returns the findings the parser stored on the elements they
// make unusable (a parameter's or response header's on its operation, an
// apiKey's on its scheme) for the generator to refuse or skip.
func unusable(api *ir.API) ir.Diagnostics {
	var out ir.Diagnostics
	if api == nil {
		return nil
	}
	for _, op := range api.Operations {
		out = append(out, op.Unsupported...)
	}
	for _, s := range api.SecuritySchemes {
		out = append(out, s.Unsupported...)
	}
	return out
}

// TestHostileHeaderNamesRefused: every header and cookie name the parser
// reads must be an HTTP token (RFC 9110 section 5.6.2); anything else
// (CR/LF, a space, a colon, nothing, non-ASCII) is an error located at the
// name, since every request would otherwise fail unsent, or carry a second
// header. The idempotency key's is the parser's own error; the others are
// stored on the operation or scheme they make unusable, which the generator
// refuses (or skips under SkipUnsupported) and which has lost the name.
func TestHostileHeaderNamesRefused(t *testing.T) {
	for _, site := range headerNameSites {
		for label, name := range hostileHeaderNames {
			t.Run(site.site+"/"+label, func(t *testing.T) {
				spec := "openapi: 3.0.3\ninfo: {title: t, version: '1'}\n" + strings.ReplaceAll(site.spec, "NAME", name)
				api, diags, err := LoadData("api.yaml", []byte(spec), Options{})
				if err != nil {
					t.Fatal(err)
				}
				diags = append(diags, unusable(api)...)
				unq, _ := strconv.Unquote(name)
				pointer := strings.ReplaceAll(site.pointer, "NAME", escapePointer(unq))
				want := "(" + pointer + ")"
				for _, d := range diags {
					if d.Severity == ir.SeverityError && d.Rule == site.rule && strings.Contains(d.String(), want) &&
						strings.Contains(d.Message, strconv.Quote(unq)) && strings.Contains(d.Message, "HTTP token") {
						return
					}
				}
				t.Errorf("no %s error naming %s and %q; got:\n%s", site.rule, want, unq, renderDiags(diags))
			})
		}
	}
}

// TestTokenHeaderNamesAccepted: the punctuation a token allows is not an
// error at any site.
func TestTokenHeaderNamesAccepted(t *testing.T) {
	for _, site := range headerNameSites {
		spec := "openapi: 3.0.3\ninfo: {title: t, version: '1'}\n" + strings.ReplaceAll(site.spec, "NAME", "X-Api_Key.v2!#$%&'*+^`|~")
		api, diags, err := LoadData("api.yaml", []byte(spec), Options{})
		if err != nil {
			t.Fatal(err)
		}
		diags = append(diags, unusable(api)...)
		if errs := diags.Errors(); errs != nil {
			t.Errorf("%s: %v", site.site, errs)
		}
	}
}

func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
