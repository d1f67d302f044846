package wire

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"strings"
	"testing"
)

// TestEncodeFormStyles: each encoding style of a form property, on the wire.
func TestEncodeFormStyles(t *testing.T) {
	body := struct {
		Tags  []string          `json:"tags"`
		Ids   []int             `json:"ids"`
		Pipes []string          `json:"pipes"`
		Deep  []string          `json:"deep"`
		Plain []string          `json:"plain"`
		Obj   map[string]string `json:"obj"`
	}{[]string{"a", "b c"}, []int{1, 2}, []string{"x", "y"}, []string{"d", "e"}, []string{"p", "q"}, map[string]string{"k": "v"}}
	b, err := EncodeForm(body,
		Encoding{Property: "tags", Style: StyleForm, Explode: false},
		Encoding{Property: "ids", Style: StyleSpaceDelimited},
		Encoding{Property: "pipes", Style: StylePipeDelimited},
		Encoding{Property: "deep", Style: StyleDeepObject, Explode: true},
		Encoding{Property: "plain", Explode: true},
		Encoding{Property: "obj"})
	if err != nil {
		t.Fatal(err)
	}
	want := "tags=a,b+c&ids=1%202&pipes=x|y&deep%5B0%5D=d&deep%5B1%5D=e&plain=p&plain=q&obj=k,v"
	if string(b) != want {
		t.Errorf("form =\n%s\nwant\n%s", b, want)
	}
}

// readParts lists name|filename|content-type|data for each part.
func readParts(t *testing.T, b []byte, ct string) []string {
	t.Helper()
	_, params, err := mime.ParseMediaType(ct)
	if err != nil {
		t.Fatal(err)
	}
	r := multipart.NewReader(bytes.NewReader(b), params["boundary"])
	var got []string
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			return got
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(p)
		got = append(got, p.FormName()+"|"+p.FileName()+"|"+p.Header.Get("Content-Type")+"|"+string(data))
	}
}

// upload is a model with additional properties, as the generator emits it.
type upload struct {
	Meta                 map[string]any `json:"meta"`
	Image                []byte         `json:"image"`
	Note                 string         `json:"note"`
	Ints                 []int          `json:"ints"`
	AdditionalProperties map[string]any `json:"-"`
}

func (u upload) MarshalJSON() ([]byte, error) {
	type plain upload
	return MarshalExtra(plain(u), u.AdditionalProperties)
}

// TestEncodeMultipartEncodings: declared part types, and extra members kept.
func TestEncodeMultipartEncodings(t *testing.T) {
	u := upload{Meta: map[string]any{"a": 1}, Image: []byte("PNG"), Note: "hi", Ints: []int{3, 4},
		AdditionalProperties: map[string]any{"zeta": "z", "alpha": json.Number("7"), "obj": map[string]any{"x": true}, "note": "dup"}}
	b, ct, err := EncodeMultipart(u,
		Encoding{Property: "meta", ContentType: "application/vnd.x+json"},
		Encoding{Property: "image", ContentType: "image/png, image/jpeg"},
		Encoding{Property: "note", ContentType: "text/markdown"},
		Encoding{Property: "ints", ContentType: "application/json"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`meta||application/vnd.x+json|{"a":1}`,
		"image|image|image/png|PNG",
		"note||text/markdown|hi",
		"ints||application/json|[3,4]",
		"alpha|||7",
		`obj||application/json|{"x":true}`,
		"zeta|||z",
	}
	if got := readParts(t, b, ct); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("parts =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, _, err := EncodeMultipart(u, Encoding{Property: "meta", ContentType: "application/xml"}); err == nil {
		t.Error("an object was sent as application/xml")
	}
}
