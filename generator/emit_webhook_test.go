package generator

import (
	"slices"
	"strings"
	"testing"

	specparser "github.com/idemgen/idemgen/parser"
)

// hostileWebhooks is a 3.1 document whose webhook name, operationId,
// summary, description and payload type all hold @@.
const hostileWebhooks = `openapi: 3.1.0
info: {title: t, version: "1"}
paths: {}
webhooks:
  "hook @@":
    post:
      operationId: "op @@"
      summary: "S @@"
      description: "D @@"
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                type: {const: "E @@"}
  WebhookHandler:
    post:
      requestBody:
        content:
          application/json:
            schema: {$ref: "#/components/schemas/WebhookReceiver"}
components:
  schemas:
    WebhookReceiver:
      type: object
      properties:
        type: {type: string}
`

// TestWebhookReceiverFromHostileText: spec text in a webhook's name, id,
// summary, description and payload type never becomes code (the checks of
// TestSpecTextNeverBecomesCode), the file declares what benign text gives,
// and a schema named like the receiver's own identifiers is renamed; the
// package type-checks.
func TestWebhookReceiverFromHostileText(t *testing.T) {
	var benign []string
	for _, name := range []string{"benign", "newline", "kitchen", "nosplit", "trailing"} {
		spec := strings.ReplaceAll(hostileWebhooks, "@@", yamlQuoted(hostileTexts[name]))
		api, diags, err := specparser.LoadData("hooks.yaml", []byte(spec), specparser.Options{})
		if err != nil || diags.HasErrors() {
			t.Fatalf("%s: %v %v", name, err, diags.Errors())
		}
		if len(api.Webhooks) != 2 {
			t.Fatalf("%s: %d webhooks", name, len(api.Webhooks))
		}
		out, err := Generate(api, Config{Package: "hooks", Server: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// Compared as multisets: hostile text makes other type names, and
		// models are declared in name order.
		decls := slices.Sorted(slices.Values(checkNoCodeFromText(t, name, out.Files)))
		if name == "benign" {
			benign = decls
		} else if strings.Join(decls, " ") != strings.Join(benign, " ") {
			t.Errorf("%s: declarations %v, benign %v", name, decls, benign)
		}
		if err := typeCheckFiles(t, out.Files); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
