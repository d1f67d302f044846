package parser

import (
	"sort"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/ir"
)

// inlineSpec has the same inline shapes in several places: Stripe's
// clearable metadata (an object or ""), a one-value enum, and an address
// with different descriptions, and one with a different required list.
const inlineSpec = `openapi: 3.0.3
info: {title: t, version: '1'}
paths:
  /customers/{customer}/subscriptions/{subscription_exposed_id}:
    post:
      operationId: PostCustomersCustomerSubscriptionsSubscriptionExposedId
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                metadata:
                  anyOf: [{type: object, additionalProperties: {type: string}}, {type: string, enum: ['']}]
                payment_settings:
                  type: object
                  properties:
                    payment_method_options:
                      type: object
                      properties:
                        us_bank_account:
                          type: object
                          properties:
                            financial_connections:
                              type: object
                              properties:
                                permissions:
                                  type: array
                                  items: {type: string, enum: [balances, ownership, payment_method, transactions]}
                address: {type: object, description: where it ships, properties: {line1: {type: string}}}
      responses:
        '200': {description: ok}
  /customers:
    post:
      operationId: PostCustomers
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                metadata:
                  anyOf: [{type: object, additionalProperties: {type: string}}, {type: string, enum: ['']}]
                address: {type: object, description: where it bills, properties: {line1: {type: string}}}
                billing: {type: object, required: [line1], properties: {line1: {type: string}}}
                shipping:
                  anyOf: [{type: object, properties: {name: {type: string}}}, {type: string, enum: ['']}]
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  object: {type: string, enum: [list]}
components:
  schemas:
    Customer:
      type: object
      properties:
        object: {type: string, enum: [customer]}
        metadata:
          anyOf: [{type: object, additionalProperties: {type: string}}, {type: string, enum: ['']}]
`

// TestInlineSchemasShareAndShortNames: structurally identical inline
// schemas are one declaration (descriptions aside), named after their
// member and its parent rather than their path (after the member alone
// right under an operation); one-value enums are named after their value.
func TestInlineSchemasShareAndShortNames(t *testing.T) {
	api, diags, err := LoadData("s.yaml", []byte(inlineSpec), Options{})
	if err != nil || diags.HasErrors() {
		t.Fatalf("load: %v %v", err, diags)
	}
	var names []string
	for _, s := range api.Schemas {
		names = append(names, s.GoName)
	}
	sort.Strings(names)
	want := []string{"Address", "Billing", "Customer", "CustomerObject", "EmptyString", "ListObject", "Metadata",
		"FinancialConnectionsPermissionsItem", "PostCustomersCustomerSubscriptionsSubscriptionExposedIDRequest",
		"PostCustomersRequest", "PostCustomersResponse", "Shipping", "ShippingVariant1", "PaymentMethodOptionsUsBankAccount",
		"UsBankAccountFinancialConnections", "PaymentSettingsPaymentMethodOptions", "PaymentSettings"}
	sort.Strings(want)
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("declarations:\n got %s\nwant %s", strings.Join(names, " "), strings.Join(want, " "))
	}
	for _, s := range api.Schemas {
		if s.GoName == "Metadata" && (s.Kind != ir.KindUnion || s.Variants[1].Ref.GoName != "EmptyString") {
			t.Errorf("Metadata is %v with variants %v", s.Kind, s.Variants)
		}
	}
}

// TestInlineCandidates: an inline schema's names run from its member to its
// full path; a document's own over-long name loses repeated words.
func TestInlineCandidates(t *testing.T) {
	for _, c := range []struct {
		h    nameHint
		want string
	}{
		{opHint("PostCustomersRequest").member("PaymentSettings").member("Card").glue("Variant2"),
			"PaymentSettingsCardVariant2 PostCustomersRequestCardVariant2 PostCustomersRequestPaymentSettingsCardVariant2"},
		{opHint("PostCustomersRequest").member("Metadata"), "Metadata PostCustomersRequestMetadata"},
		{rootHint("Payment").member("Status"), "PaymentStatus"},
	} {
		if got := strings.Join(c.h.candidates(80), " "); got != c.want {
			t.Errorf("candidates:\n got %s\nwant %s", got, c.want)
		}
	}
	if got := shortName("CustomerBalanceResourceCashBalanceTransactionResourceFundedTransactionResourceBankTransferResourceEuBankTransfer", 80); got != "CustomerBalanceResourceCashTransactionFundedBankTransferResourceEuBankTransfer" {
		t.Errorf("shortName = %s", got)
	}
}
