package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	idemrt "github.com/idemgen/idemgen/runtime"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

type cat struct {
	Name  string `json:"name"`
	Lives int    `json:"lives"`
}

type dog struct {
	Name string `json:"name"`
	Bark bool   `json:"bark"`
}

// pet mimics a generated union.
type pet struct {
	Cat  *cat
	Dog  *dog
	Text *string
	List []string
}

func TestDecodeUnionTriesVariantsStrictlyThenLeniently(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{`{"name":"Tom","lives":9}`, "cat"},
		{`{"name":"Rex","bark":true}`, "dog"},   // strict pass skips cat (unknown "bark")
		{`{"name":"Odd","color":"red"}`, "cat"}, // no strict match: first lenient one
		{`"hello"`, "text"},                     // JSON type picks the string variant
		{`["a","b"]`, "list"},
	}
	for _, tt := range tests {
		var p pet
		if err := DecodeUnion([]byte(tt.in), nil, &p.Cat, &p.Dog, &p.Text, &p.List); err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		got := ""
		switch {
		case p.Cat != nil:
			got = "cat"
		case p.Dog != nil:
			got = "dog"
		case p.Text != nil:
			got = "text"
		case p.List != nil:
			got = "list"
		}
		if got != tt.want {
			t.Errorf("%s decoded as %q, want %q", tt.in, got, tt.want)
		}
	}
	var p pet
	if err := DecodeUnion([]byte(`42`), nil, &p.Cat, &p.Dog, &p.List); !errors.Is(err, ErrNoVariant) {
		t.Errorf("42: err = %v, want ErrNoVariant", err)
	}
	if err := DecodeUnion([]byte(" "), nil, &p.Cat); !errors.Is(err, ErrNoVariant) {
		t.Errorf("empty input: %v", err)
	}
	if b, err := MarshalUnion(nil, 7); err != nil || string(b) != "7" {
		t.Errorf("a value variant: %s %v", b, err)
	}
	if err := DecodeUnion([]byte(`null`), nil, &p.Cat); err != nil || p.Cat != nil {
		t.Errorf("null: %v, %v", err, p.Cat)
	}
}

func TestDiscriminatorAndVariant(t *testing.T) {
	data := []byte(`{"kind":"dog","name":"Rex","bark":true}`)
	if got := Discriminator(data, "kind"); got != "dog" {
		t.Fatalf("Discriminator = %q", got)
	}
	if Discriminator([]byte(`[1]`), "kind") != "" || Discriminator([]byte(`{"kind":1}`), "kind") != "" {
		t.Error("non-string tags must read as empty")
	}
	var d *dog
	if err := DecodeVariant(data, &d); err != nil || d == nil || d.Name != "Rex" {
		t.Fatalf("DecodeVariant: %v %+v", err, d)
	}
}

func TestMarshalUnionPrefersTheSetVariantThenRaw(t *testing.T) {
	var none *cat
	b, _ := MarshalUnion(json.RawMessage(`{"x":1}`), none, &dog{Name: "Rex"})
	if string(b) != `{"name":"Rex","bark":false}` {
		t.Errorf("got %s", b)
	}
	b, _ = MarshalUnion(json.RawMessage(`{"x":1}`), none)
	if string(b) != `{"x":1}` {
		t.Errorf("raw: got %s", b)
	}
	b, _ = MarshalUnion(nil, none, []string(nil))
	if string(b) != "null" {
		t.Errorf("empty: got %s", b)
	}
}

func TestExtraMembersRoundTrip(t *testing.T) {
	type plain struct {
		ID string `json:"id"`
	}
	b, err := MarshalExtra(plain{ID: "1"}, map[string]int{"z": 2, "a": 1, "id": 9})
	if err != nil || string(b) != `{"id":"1","a":1,"z":2}` {
		t.Fatalf("MarshalExtra = %s, %v", b, err)
	}
	b, _ = MarshalExtra(struct{}{}, map[string]int{"a": 1})
	if string(b) != `{"a":1}` {
		t.Errorf("no declared members: %s", b)
	}
	var extra map[string]int
	if err := UnmarshalExtra([]byte(`{"id":"1","a":1,"z":2}`), &extra, "id"); err != nil {
		t.Fatal(err)
	}
	if len(extra) != 2 || extra["a"] != 1 || extra["z"] != 2 {
		t.Errorf("extra = %v", extra)
	}
	if err := UnmarshalExtra([]byte(`{"id":"1"}`), &extra, "id"); err != nil || extra != nil {
		t.Errorf("no extras: %v %v", extra, err)
	}
	if err := UnmarshalExtra([]byte(`{"a":"x"}`), &extra); err == nil {
		t.Error("a mistyped extra member was accepted")
	}
}

func TestEncodeForm(t *testing.T) {
	type item struct {
		Price string `json:"price"`
		Qty   int    `json:"quantity"`
	}
	body := struct {
		Amount   int               `json:"amount"`
		Note     *string           `json:"note,omitempty"`
		Expand   []string          `json:"expand"`
		Items    []item            `json:"items"`
		Metadata map[string]string `json:"metadata"`
	}{Amount: 5, Expand: []string{"a", "b c"}, Items: []item{{"p_1", 2}}, Metadata: map[string]string{"k": "v&"}}
	b, err := EncodeForm(body)
	if err != nil {
		t.Fatal(err)
	}
	want := "amount=5&expand=a&expand=b+c&items%5B0%5D%5Bprice%5D=p_1&items%5B0%5D%5Bquantity%5D=2&metadata%5Bk%5D=v%26"
	if string(b) != want {
		t.Errorf("form =\n%s\nwant\n%s", b, want)
	}
	b, _ = EncodeForm(body, Encoding{Property: "expand", Style: StyleDeepObject, Explode: true},
		Encoding{Property: "items", Style: StyleDeepObject, Explode: true})
	want = "amount=5&expand%5B0%5D=a&expand%5B1%5D=b+c&items%5B0%5D%5Bprice%5D=p_1&items%5B0%5D%5Bquantity%5D=2&metadata%5Bk%5D=v%26"
	if string(b) != want {
		t.Errorf("deepObject form =\n%s\nwant\n%s", b, want)
	}
	vals, _ := url.ParseQuery(string(b))
	if vals.Get("items[0][price]") != "p_1" || vals.Get("metadata[k]") != "v&" {
		t.Errorf("server-side view: %v", vals)
	}
}

func TestEncodeMultipart(t *testing.T) {
	body := struct {
		Name  string    `json:"name"`
		File  []byte    `json:"file"`
		Tags  []string  `json:"tags,omitempty"`
		Meta  *cat      `json:"meta,omitempty"`
		Skip  *string   `json:"skip,omitempty"`
		Data  io.Reader `json:"data"`
		inner int
	}{Name: "n", File: []byte{0, 1}, Tags: []string{"x", "y"}, Meta: &cat{Name: "Tom"}, Data: strings.NewReader("rd")}
	b, ct, err := EncodeMultipart(&body)
	if err != nil {
		t.Fatal(err)
	}
	_, params, _ := mime.ParseMediaType(ct)
	r := multipart.NewReader(bytes.NewReader(b), params["boundary"])
	var got []string
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(p)
		got = append(got, p.FormName()+"|"+p.FileName()+"|"+p.Header.Get("Content-Type")+"|"+string(data))
	}
	want := []string{"name|||n", "file|file|application/octet-stream|\x00\x01", "tags|||x", "tags|||y",
		`meta||application/json|{"name":"Tom","lives":0}`, "data|data|application/octet-stream|rd"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("parts =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, _, err := EncodeMultipart("no"); err == nil {
		t.Error("a non-struct body was accepted")
	}
}

func TestHeaderInto(t *testing.T) {
	h := http.Header{}
	h.Set("ETag", `"v2"`)
	h.Set("X-Count", "42")
	h.Set("X-Bad", "forty")
	h.Set("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT")
	h.Set("X-Day", "2024-03-01")
	var (
		etag  string
		count int64
		bad   = int32(7)
		mod   time.Time
		day   idemrt.Date
		state paramStatus
	)
	HeaderInto(h, "ETag", &etag)
	HeaderInto(h, "X-Count", &count)
	HeaderInto(h, "X-Bad", &bad)
	HeaderInto(h, "Last-Modified", &mod)
	HeaderInto(h, "X-Day", &day)
	HeaderInto(h, "ETag", &state)
	if etag != `"v2"` || count != 42 || bad != 7 || mod.Year() != 1994 || day != (idemrt.Date{Year: 2024, Month: 3, Day: 1}) || state != `"v2"` {
		t.Errorf("got %q %d %d %v %v %q", etag, count, bad, mod, day, state)
	}
}

func TestReadBodyReadsOnceAndCloses(t *testing.T) {
	rc := &closeTracker{Reader: strings.NewReader("abc")}
	b, err := ReadBody(rc)
	if err != nil || string(b) != "abc" || !rc.closed {
		t.Fatalf("%q %v closed=%v", b, err, rc.closed)
	}
	if b, _ := ReadBody(nil); b == nil || len(b) != 0 {
		t.Error("a nil reader must be an empty, non-nil body")
	}
}

type closeTracker struct {
	io.Reader
	closed bool
}

func (c *closeTracker) Close() error { c.closed = true; return nil }
