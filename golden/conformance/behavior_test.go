package conformance

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestRequestsAsTheDocumentSaysTheyGo sends each conformance case to a
// loopback server and checks what arrives: the path without its "#…"
// fragment, deepObject lists of objects with indices, no q=null for an unset
// JSON query parameter, no zero readOnly id, the required member that only
// "required" names, and Id beside id.
func TestRequestsAsTheDocumentSaysTheyGo(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.URL.EscapedPath()+"?"+r.URL.RawQuery)
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/records":
			var m map[string]json.RawMessage
			_ = json.NewDecoder(r.Body).Decode(&m)
			if _, ok := m["id"]; ok {
				t.Errorf("the request carries the readOnly id: %v", m)
			}
			if string(m["extra"]) != `{"k":1}` || string(m["Id"]) != `"A"` {
				t.Errorf("request body members = %v", m)
			}
			w.WriteHeader(201)
			_, _ = w.Write([]byte(`{"id":7,"Id":"A","name":"n","extra":true,"os.features":"f"}`))
		case "/shared_items":
			_, _ = w.Write([]byte(`[{"value":"forty-two"},{"value":{"a":1}}]`))
		default:
			_, _ = w.Write([]byte(`{"value":42}`))
		}
	}))
	defer srv.Close()
	c, err := NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	line := "a"
	items, err := c.ListAppItems(ctx)
	if err != nil || len(items) != 2 || string(items[0].Value) != `"forty-two"` {
		t.Fatalf("ListAppItems = %v, %v", items, err)
	}
	_, err = c.Search(ctx, SearchParams{Lines: []Filter{{Name: &line}}, Details: &Details{TaxIDs: []DetailsTaxIDsItem{{Type: TaxIDsItemTypeEuVat, Value: "1"}}}})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := c.CreateRecord(ctx, Record{ID: "A", Name: "n", Extra: json.RawMessage(`{"k":1}`), OSFeatures: "f"})
	if err != nil || rec.ID2 != 7 || rec.ID != "A" || string(rec.Extra) != "true" {
		t.Fatalf("CreateRecord = %+v, %v", rec, err)
	}
	want := []string{"/shared_items?", "/search?details[tax_ids][0][type]=eu_vat&details[tax_ids][0][value]=1&lines[0][name]=a", "/records?"}
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Errorf("request %d = %q, want %q", i, got, want[i])
		}
	}
}

// TestUnionBehindNullableAllOfDecodesItsStringVariant pins OpenAI's run
// objects: tool_choice is allOf: [$ref union, {nullable: true}], and "none"
// is its string-enum variant, not a map.
func TestUnionBehindNullableAllOfDecodesItsStringVariant(t *testing.T) {
	var r Run
	if err := json.Unmarshal([]byte(`{"id":"r","tool_choice":"none","modalities":["text"]}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.ToolChoice == nil || r.ToolChoice.ToolChoiceVariant1 == nil || *r.ToolChoice.ToolChoiceVariant1 != ToolChoiceVariant1None {
		t.Fatalf("tool_choice = %+v", r.ToolChoice)
	}
	if err := json.Unmarshal([]byte(`{"tool_choice":null}`), &r); err != nil || r.ToolChoice != nil {
		t.Fatalf("null tool_choice: %+v, %v", r.ToolChoice, err)
	}
}

// TestUntaggableMemberNameKeepsItsValue pins the map fallback for a member
// name encoding/json cannot carry in a tag ("it's"): it round-trips under
// its own name instead of going out as the Go field's name.
func TestUntaggableMemberNameKeepsItsValue(t *testing.T) {
	var r Run
	if err := json.Unmarshal([]byte(`{"tool_choice":"auto","quirky":{"it's":"x"}}`), &r); err != nil {
		t.Fatal(err)
	}
	if string(r.Quirky["it's"]) != `"x"` {
		t.Fatalf("quirky = %v", r.Quirky)
	}
	b, _ := json.Marshal(r.Quirky)
	if string(b) != `{"it's":"x"}` {
		t.Fatalf("quirky encodes as %s", b)
	}
}

// TestConstantVariantsAreAnEnumeration pins oneOf of one-value enums
// (Discord's join request status): one enum type, and "SUBMITTED" is
// SUBMITTED, not the first variant.
func TestConstantVariantsAreAnEnumeration(t *testing.T) {
	var r Run
	if err := json.Unmarshal([]byte(`{"tool_choice":"auto","status":"SUBMITTED"}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.Status == nil || *r.Status != RunStatusSubmitted || !r.Status.IsKnown() {
		t.Fatalf("status = %v", r.Status)
	}
}
