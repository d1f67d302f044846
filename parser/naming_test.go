package parser

import (
	"testing"

	_ "github.com/idemgen/idemgen/internal/testutil"
)

func TestGoName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"createPayment", "CreatePayment"},
		{"payment_id", "PaymentID"},
		{"customer_id", "CustomerID"},
		{"If-Match", "IfMatch"},
		{"Idempotency-Key", "IdempotencyKey"},
		{"ETag", "ETag"},
		{"etag", "Etag"},
		{"order_ids", "OrderIDs"},
		{"HTTPServer", "HTTPServer"},
		{"api_url", "APIURL"},
		{"getUserByID", "GetUserByID"},
		{"beta_createResponse", "BetaCreateResponse"},
		{"StartTime", "StartTime"},
		{"StartTime<", "StartTimeLt"},
		{"StartTime>", "StartTimeGt"},
		{"expand[]", "Expand"},
		{"filter[status]", "FilterStatus"},
		{"2fa_enabled", "N2faEnabled"},
		{"STATUS", "Status"},
		{"user-agent", "UserAgent"},
		{"x-rate-limit", "XRateLimit"},
		{"v2010", "V2010"},
		{"", "X"},
		{"---", "X"},
		{"über", "Ber"},
		{"type", "Type"},
	}
	for _, tt := range tests {
		if got := GoName(tt.in); got != tt.want {
			t.Errorf("GoName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLowerGoName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"CreatePayment", "createPayment"},
		{"ID", "id"},
		{"URLPath", "urlPath"},
		{"get /orders/{order_id}", "getOrdersOrderID"},
	}
	for _, tt := range tests {
		if got := lowerGoName(tt.in); got != tt.want {
			t.Errorf("lowerGoName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNamerResolvesCollisionsInRequestOrder(t *testing.T) {
	n := newNamer("Client")
	got := []string{n.unique("Client"), n.unique("Order"), n.unique("Order"), n.unique("Order2"), n.unique("Order")}
	want := []string{"Client2", "Order", "Order2", "Order22", "Order3"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("name %d = %q, want %q", i, got[i], want[i])
		}
	}
}
