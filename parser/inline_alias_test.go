package parser

import (
	"strings"
	"testing"

	"github.com/idemgen/idemgen/ir"
)

// sharedSpec has the shapes structural sharing used to name after whichever
// place met them first: one body shared by two operations, a three-member
// body shared by two, a string-or-"" union on fields of different names, an
// enum on two differently named fields, and a union variant without title.
const sharedSpec = `openapi: 3.0.3
info: {title: t, version: '1'}
paths:
  /a/{id}/void:
    post:
      operationId: voidA
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      requestBody: {content: {application/json: {schema: {type: object, properties: {expand: {type: array, items: {type: string}}}}}}}
      responses: {'200': {description: ok}}
  /keys/{id}:
    delete:
      operationId: deleteKey
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      requestBody: {content: {application/json: {schema: {type: object, properties: {expand: {type: array, items: {type: string}}}}}}}
      responses: {'200': {description: ok}}
  /disputes/{id}:
    post:
      operationId: updateDispute
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/DisputeUpdate'}}}}
      responses: {'200': {description: ok}}
  /charges/{id}/dispute:
    post:
      operationId: updateChargeDispute
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      requestBody: {content: {application/json: {schema: {type: object, properties: {a: {type: string}, b: {type: string}, c: {type: string}}}}}}
      responses: {'200': {description: ok}}
  /x:
    post:
      operationId: x
      requestBody: {content: {application/json: {schema: {type: object, properties: {a: {type: string}, b: {type: string}, c: {type: string}}}}}}
      responses: {'200': {description: ok}}
components:
  schemas:
    DisputeUpdate:
      type: object
      properties:
        canceled:
          type: object
          properties:
            url: {anyOf: [{type: string}, {type: string, enum: ['']}]}
            cancellation_reason: {anyOf: [{type: string}, {type: string, enum: ['']}]}
            status: {type: string, enum: [open, closed]}
            outcome: {type: string, enum: [open, closed]}
            when: {oneOf: [{type: integer}, {type: object, properties: {at: {type: integer}}}]}
`

// TestSharedShapesNameTheirUses shows the naming of shared inline shapes:
// each operation's signature names its own body (an alias when the shape is
// another's), a union of fields of different names is named by its shape,
// an enum's other field gets an alias named after its parent and itself,
// and an untitled variant's name is listed as an info finding.
func TestSharedShapesNameTheirUses(t *testing.T) {
	api, diags := loadHooks(t, sharedSpec)
	byName := map[string]*ir.Schema{}
	for _, s := range api.Schemas {
		byName[s.GoName] = s
	}
	ops := map[string]*ir.Operation{}
	for _, op := range api.Operations {
		ops[op.GoName] = op
	}
	bodyName := func(op string) string { return ops[op].Body.Content[0].Schema.Ref.GoName }
	for op, want := range map[string]string{"VoidA": "VoidARequest", "DeleteKey": "DeleteKeyRequest",
		"UpdateChargeDispute": "UpdateChargeDisputeRequest", "X": "XRequest", "UpdateDispute": "DisputeUpdate"} {
		if got := bodyName(op); got != want {
			t.Errorf("%s takes %s, want %s", op, got, want)
		}
	}
	// Two operations share {expand}: a neutral name, an alias for each.
	if a := byName["DeleteKeyRequest"]; a == nil || a.Kind != ir.KindRef || a.Ref.GoName != "ExpandRequest" ||
		!strings.Contains(a.Description, "DeleteKey and VoidA share this request body") {
		t.Errorf("DeleteKeyRequest = %+v", a)
	}
	// Three members: named after one operation, the other gets an alias.
	if a := byName["UpdateChargeDisputeRequest"]; a == nil || a.Kind != ir.KindRef || a.Ref.GoName != "XRequest" {
		t.Errorf("UpdateChargeDisputeRequest = %+v", a)
	}
	canceled := byName["DisputeUpdateCanceled"]
	if canceled == nil {
		t.Fatalf("no DisputeUpdateCanceled among %v", names(api.Schemas))
	}
	fields := map[string]string{}
	for _, p := range canceled.Properties {
		fields[p.GoName] = p.Type.Ref.GoName
	}
	if fields["URL"] != "StringOrEmpty" || fields["CancellationReason"] != "StringOrEmpty" {
		t.Errorf("the string-or-empty fields are %s and %s, want StringOrEmpty", fields["URL"], fields["CancellationReason"])
	}
	if fields["Outcome"] != "CanceledOutcome" || byName[fields["Outcome"]].Kind != ir.KindRef {
		t.Errorf("Status is %s, Outcome %s: want an alias named after Outcome", fields["Status"], fields["Outcome"])
	}
	var infos []string
	for _, d := range diags.Infos() {
		if d.Rule == ruleNumberedName {
			infos = append(infos, d.Pointer+": "+d.Message)
		}
	}
	if len(infos) != 1 || !strings.Contains(infos[0], "Variant2") || !strings.Contains(infos[0], "/components/schemas/DisputeUpdate/properties/canceled/properties/when/oneOf/1") {
		t.Errorf("numbered names reported: %q", infos)
	}
}

func names(ss []*ir.Schema) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.GoName)
	}
	return out
}

// borrowedSpec shares one inline address between two members of a body,
// `address` and `registered_address`, while a component already holds the
// name Address: the shape is named after the operation's address
// (PostPeopleRequestAddress), a name that reads false at registered_address.
const borrowedSpec = `openapi: 3.0.3
info: {title: t, version: '1'}
paths:
  /people:
    post:
      operationId: postPeople
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                address: {type: object, properties: {city: {type: string}, line1: {type: string}}}
                registered_address: {type: object, properties: {city: {type: string}, line1: {type: string}}}
      responses: {'200': {description: ok}}
components:
  schemas:
    Address: {type: object, properties: {street: {type: string}}}
`

// TestSharedShapeNamedAfterAnOperationAliasesOtherMembers: a member whose
// name ends with the member the shared shape was named after
// (registered_address, address) reads true with that type only when the
// type's whole name is that member's; a type that also carries the
// operation's name (PostPeopleRequestAddress) gets an alias named after the
// other member (RegisteredAddress), as Stripe's registered_address and
// support_address, account_holder_type, network_status,
// application_fee_amount and additional_document did.
func TestSharedShapeNamedAfterAnOperationAliasesOtherMembers(t *testing.T) {
	api, _ := loadHooks(t, borrowedSpec)
	body := api.Operations[0].Body.Content[0].Schema.Ref
	fields := map[string]string{}
	for _, p := range body.Properties {
		fields[p.GoName] = p.Type.Ref.GoName
	}
	if fields["Address"] != "PostPeopleRequestAddress" {
		t.Errorf("address is a %s, want PostPeopleRequestAddress", fields["Address"])
	}
	if fields["RegisteredAddress"] != "RegisteredAddress" {
		t.Errorf("registered_address is a %s, want an alias named RegisteredAddress", fields["RegisteredAddress"])
	}
}
