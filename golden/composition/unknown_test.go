package composition_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/golden/composition"
	idemrt "github.com/idemgen/idemgen/runtime"
	"github.com/idemgen/idemgen/runtime/wire"
)

// answer serves body as JSON on loopback and records the last request body.
func answer(t *testing.T, body []byte) (*composition.Client, *[]byte) {
	t.Helper()
	var got []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusAccepted)
		}
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	c, err := composition.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return c, &got
}

// sameJSON fails the test unless a and b hold the same JSON value.
func sameJSON(t *testing.T, what string, a, b []byte) {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil || !reflect.DeepEqual(x, y) {
		t.Errorf("%s:\n got %s\nwant %s", what, a, b)
	}
}

// A server a release ahead: undeclared members at the top level, in array
// items, in map values, in a union variant, deep inside an undeclared value.
const newerTree = `{"value":"root","since":"2027-01-01","children":[{"value":"c1","weight":1.50}],` +
	`"named":{"a":{"value":"n1","flags":{"x":[true,null,{"y":"z"}]}}},` +
	`"link":{"value":"linked","colour":"teal"}}`

// TestUnknownMembersSurviveTheClient: GetTree decodes the newer answer, each
// model hands back what it did not declare, and encoding the result again
// gives the server's JSON: nothing lost.
func TestUnknownMembersSurviveTheClient(t *testing.T) {
	c, _ := answer(t, []byte(newerTree))
	tree, err := c.GetTree(context.Background(), composition.GetTreeParams{TreeID: 1})
	if err != nil {
		t.Fatal(err)
	}
	for what, got := range map[string]string{
		"top":     string(tree.UnknownMembers()["since"]),
		"item":    string(tree.Children[0].UnknownMembers()["weight"]),
		"map":     string(tree.Named["a"].UnknownMembers()["flags"]),
		"variant": string(tree.Link.TreeNode.UnknownMembers()["colour"]),
	} {
		want := map[string]string{"top": `"2027-01-01"`, "item": `1.50`, "map": `{"x":[true,null,{"y":"z"}]}`, "variant": `"teal"`}[what]
		if got != want {
			t.Errorf("%s: kept %s, want %s", what, got, want)
		}
	}
	again, err := wire.Marshal(tree)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "GetTree encoded again", again, []byte(newerTree))
}

// newerReceipt has undeclared members at the top level, behind a Nullable,
// in both variants of an anyOf and in an anyOf's object variant.
const newerReceipt = `{"id":"r1","risk":{"score":7},"parent":{"id":"r0","archived":true},` +
	`"contact":{"email":"a@example.com","phone":"+1","channel":"sms"},` +
	`"payload":{"type":"OrderPlaced","order_id":"o1","total":5,"coupon":"X"}}`

// TestUnknownMembersReadModifyWrite: a receipt fetched with unknown members
// and sent back in a request (read-modify-write) carries them all; a
// request the caller builds is sent exactly as encoding/json writes it.
func TestUnknownMembersReadModifyWrite(t *testing.T) {
	c, sent := answer(t, []byte(newerReceipt))
	placed := composition.Event{OrderPlaced: &composition.OrderPlaced{Type: "OrderPlaced", OrderID: "o1"}}
	receipt, err := c.PostEvent(context.Background(), placed, composition.PostEventParams{})
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := json.Marshal(placed)
	if !bytes.Equal(*sent, plain) {
		t.Errorf("request built by the caller: sent %s, encoding/json writes %s", *sent, plain)
	}
	parent, _ := receipt.Parent.Get()
	if string(receipt.UnknownMembers()["risk"]) != `{"score":7}` || string(parent.UnknownMembers()["archived"]) != "true" ||
		string(receipt.Contact.EmailContact.UnknownMembers()["channel"]) != `"sms"` ||
		string(receipt.Payload.OrderPlaced.UnknownMembers()["coupon"]) != `"X"` {
		t.Errorf("unknown members lost: %+v", receipt)
	}
	again, err := wire.Marshal(receipt)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "PostEvent's receipt encoded again", again, []byte(newerReceipt))

	// The order placed, changed and sent back.
	order := *receipt.Payload.OrderPlaced
	order.OrderID = "o2"
	if _, err := c.PostEvent(context.Background(), composition.Event{OrderPlaced: &order}, composition.PostEventParams{}); err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "the order sent back", *sent, []byte(`{"type":"OrderPlaced","order_id":"o2","total":5,"coupon":"X"}`))
}

// TestUnknownMembersNeverOverrideDeclared: a member the model declares is
// written from its field, whatever the unknown members hold.
func TestUnknownMembersNeverOverrideDeclared(t *testing.T) {
	node := composition.TreeNode{Value: "kept"}
	node.SetUnknownMembers(map[string]json.RawMessage{"value": []byte(`"evil"`), "Children": []byte(`[]`), "extra": []byte(`1`)})
	b, err := wire.Marshal(node)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"value":"kept","extra":1}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

// TestManyUnknownMembersStayBounded: 10,000 undeclared members are all
// kept; an undeclared value nesting past the depth limit fails the call
// with ErrTooDeep, as a declared one does.
func TestManyUnknownMembersStayBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"value":"wide"`)
	for i := range 10000 {
		b.WriteString(`,"m` + strconv.Itoa(i) + `":` + strconv.Itoa(i))
	}
	b.WriteString(`}`)
	c, _ := answer(t, []byte(b.String()))
	tree, err := c.GetTree(context.Background(), composition.GetTreeParams{TreeID: 1})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tree.UnknownMembers()); n != 10000 || string(tree.UnknownMembers()["m9999"]) != "9999" {
		t.Fatalf("kept %d members", n)
	}

	deep := `{"value":"deep","x":` + strings.Repeat(`{"a":`, idemrt.MaxJSONDepth) + `1` + strings.Repeat(`}`, idemrt.MaxJSONDepth) + `}`
	c, _ = answer(t, []byte(deep))
	_, err = c.GetTree(context.Background(), composition.GetTreeParams{TreeID: 1})
	if !errors.Is(err, idemrt.ErrTooDeep) {
		t.Fatalf("GetTree: %v, want ErrTooDeep", err)
	}
}
