package jsoncodec_test

import (
	"encoding/json"
	"time"

	idemrt "github.com/idemgen/idemgen/runtime"
	"github.com/idemgen/idemgen/runtime/wire"
)

// The shapes idemgen generates, copied from golden/composition and
// bench/clients/idemgen (this module cannot import the root module): enums,
// optional pointers, Nullable, Date, time.Time, raw JSON, bytes, maps,
// additionalProperties, oneOf with a discriminator and anyOf.

type receipt struct {
	Color    *color                    `json:"color,omitempty"`
	Contact  *contact                  `json:"contact,omitempty"`
	Counters map[string]int64          `json:"counters,omitempty"`
	ID       string                    `json:"id"`
	Labels   *labels                   `json:"labels,omitempty"`
	Parent   idemrt.Nullable[*receipt] `json:"parent,omitzero"`
	Payload  *payload                  `json:"payload,omitempty"`
	Events   []event                   `json:"events,omitempty"`
	Formats  *allFormats               `json:"formats,omitempty"`
	Order    *order                    `json:"order,omitempty"`
	Extra    any                       `json:"extra,omitempty"`
}

type allFormats struct {
	Anything   json.RawMessage        `json:"anything,omitempty"`
	Big        *int64                 `json:"big,omitempty"`
	Blob       []byte                 `json:"blob,omitempty"`
	CreatedAt  *time.Time             `json:"created_at,omitempty"`
	Day        *idemrt.Date           `json:"day,omitempty"`
	Flag       *bool                  `json:"flag,omitempty"`
	MaybeCount idemrt.Nullable[int64] `json:"maybe_count,omitzero"`
	Precise    *float64               `json:"precise,omitempty"`
	Ratio      *float32               `json:"ratio,omitempty"`
	Small      *int32                 `json:"small,omitempty"`
	Tiny       uint8                  `json:"tiny"`
}

type order struct {
	CreatedAt  time.Time  `json:"createdAt"`
	CustomerID string     `json:"customerId"`
	ID         string     `json:"id"`
	Items      []lineItem `json:"items"`
	Note       *string    `json:"note,omitempty"`
	Status     color      `json:"status"`
	Total      int64      `json:"total"`
}

type lineItem struct {
	Quantity  int32  `json:"quantity"`
	SKU       string `json:"sku"`
	UnitPrice int64  `json:"unitPrice"`
}

type color string

type contact struct {
	EmailContact *emailContact
	PhoneContact *phoneContact
	raw          json.RawMessage
}

func (u *contact) UnmarshalJSON(data []byte) error {
	*u = contact{}
	return wire.DecodeAnyOf(data, &u.raw,
		wire.Variant{Target: &u.EmailContact, Required: []string{"email"}},
		wire.Variant{Target: &u.PhoneContact, Required: []string{"phone"}},
	)
}

type emailContact struct {
	Email    string `json:"email"`
	Verified *bool  `json:"verified,omitempty"`
}

type phoneContact struct {
	Phone string `json:"phone"`
}

type event struct {
	OrderPlaced  *orderPlaced
	OrderShipped *orderShipped
	raw          json.RawMessage
}

func (u *event) UnmarshalJSON(data []byte) error {
	*u = event{}
	switch wire.Discriminator(data, "type") {
	case "OrderPlaced":
		return wire.DecodeVariant(data, &u.OrderPlaced)
	case "OrderShipped":
		return wire.DecodeVariant(data, &u.OrderShipped)
	}
	return wire.DecodeUnion(data, &u.raw, &u.OrderPlaced, &u.OrderShipped)
}

type payload struct {
	String      *string
	Integer     *int64
	OrderPlaced *orderPlaced
	raw         json.RawMessage
}

func (u *payload) UnmarshalJSON(data []byte) error {
	*u = payload{}
	return wire.DecodeAnyOf(data, &u.raw,
		wire.Variant{Target: &u.String},
		wire.Variant{Target: &u.Integer},
		wire.Variant{Target: &u.OrderPlaced, Required: []string{"order_id", "type"}},
	)
}

type labels struct {
	Owner                string            `json:"owner"`
	AdditionalProperties map[string]string `json:"-"`
}

func (o *labels) UnmarshalJSON(data []byte) error {
	type plain labels
	if err := wire.UnmarshalDeclared(data, (*plain)(o)); err != nil {
		return err
	}
	return wire.UnmarshalExtra(data, &o.AdditionalProperties, "owner")
}

type orderPlaced struct {
	OrderID string `json:"order_id"`
	Total   *int64 `json:"total,omitempty"`
	Type    string `json:"type"`
}

type orderShipped struct {
	Carrier  string                  `json:"carrier"`
	OrderID  string                  `json:"order_id"`
	Tracking idemrt.Nullable[string] `json:"tracking,omitzero"`
	Type     string                  `json:"type"`
}
