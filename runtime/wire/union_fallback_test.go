package wire

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// Mastodon's Status.quote as idemgen generates it: a oneOf of Quote, which
// holds a whole Status (and so the union again), and ShallowQuote, which
// declares no quoted_status and allows other members.

type mstatus struct {
	ID    string  `json:"id"`
	Quote *mquote `json:"quote,omitempty"`
}

type mfull struct {
	State        string   `json:"state"`
	QuotedStatus *mstatus `json:"quoted_status,omitempty"`
}

type mshallow struct {
	State          string  `json:"state"`
	QuotedStatusID *string `json:"quoted_status_id,omitempty"`
}

type mquote struct {
	Quote        *mfull
	ShallowQuote *mshallow
	raw          json.RawMessage
}

func (u *mquote) UnmarshalJSON(data []byte) error {
	*u = mquote{}
	return DecodeUnion(data, &u.raw, &u.Quote, &u.ShallowQuote)
}

// TestUnionFallsBackToTheVariantThatAccepts: the value fits Quote best by
// its members, fails inside it (the quoted status's id is a number), and
// decodes as ShallowQuote, the one variant it is valid for; anyOf does the
// same. A value no variant accepts keeps the best variant's error.
func TestUnionFallsBackToTheVariantThatAccepts(t *testing.T) {
	data := []byte(`{"state":"accepted","quoted_status":{"id":1}}`)
	var q mquote
	if err := json.Unmarshal(data, &q); err != nil || q.ShallowQuote == nil || q.Quote != nil {
		t.Fatalf("oneOf: %v, %+v", err, q)
	}
	if q.ShallowQuote.State != "accepted" || len(q.raw) != 0 {
		t.Errorf("oneOf: %+v, raw %s", q.ShallowQuote, q.raw)
	}
	var full *mfull
	var shallow *mshallow
	if err := DecodeAnyOf(data, nil, Variant{Target: &full}, Variant{Target: &shallow}); err != nil || shallow == nil || full != nil {
		t.Fatalf("anyOf: %v, %+v %+v", err, full, shallow)
	}
	err := json.Unmarshal([]byte(`{"state":1,"quoted_status":{"id":1}}`), &q)
	if !errors.Is(err, ErrNoVariant) || !strings.Contains(err.Error(), "mfull") {
		t.Errorf("no variant accepts: %v", err)
	}
}

// A recursive oneOf whose two variants both hold the next level and differ
// only in a member below the top (y.z, a string or a number), where one
// scan cannot tell them apart.

type ystr struct {
	Z string `json:"z"`
}

type ynum struct {
	Z int `json:"z"`
}

type twoA struct {
	Next *twin `json:"next,omitempty"`
	Y    ystr  `json:"y"`
}

type twoB struct {
	Next *twin `json:"next,omitempty"`
	Y    ynum  `json:"y"`
}

// twin counts its decodes in *calls.
type twin struct {
	A   *twoA
	B   *twoB
	raw json.RawMessage
}

var twinCalls int

func (u *twin) UnmarshalJSON(data []byte) error {
	twinCalls++
	*u = twin{}
	return DecodeUnion(data, &u.raw, &u.A, &u.B)
}

// TestUnionFallbackIsLinear: at every level of a 24-level chain the best
// variant decodes the level below, then fails on y.z; the other variant,
// which would decode the level below again (2^24 decodes in all), is not
// tried. Each level's union decodes once: the innermost level, which holds
// no level below, falls back to B; the others end in ErrNoVariant.
func TestUnionFallbackIsLinear(t *testing.T) {
	const depth = 24
	body := strings.Repeat(`{"next":`, depth) + `{"y":{"z":1}}` + strings.Repeat(`,"y":{"z":1}}`, depth)
	twinCalls = 0
	var u twin
	err := json.Unmarshal([]byte(body), &u)
	if !errors.Is(err, ErrNoVariant) {
		t.Fatalf("err = %v", err)
	}
	if twinCalls != depth+1 {
		t.Errorf("%d union decodes for %d levels, want %d", twinCalls, depth+1, depth+1)
	}
	twinCalls = 0
	if err := json.Unmarshal([]byte(`{"y":{"z":1}}`), &u); err != nil || u.B == nil || u.A != nil {
		t.Errorf("one level: %v, %+v", err, u)
	}
}
