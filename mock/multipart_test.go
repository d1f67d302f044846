package mock_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	idemgenmock "github.com/idemgen/idemgen/mock"
)

// filesSpec is Stripe's POST /v1/files in small: a closed multipart schema
// whose list and object travel as deepObject parts (expand[0],
// file_link_data[create]); with OpenAI's untyped model (an anyOf of a
// string and an enumeration) and a JSON part its encoding declares.
const filesSpec = `openapi: 3.0.3
info: {title: files, version: "1"}
paths:
  /v1/files:
    post:
      operationId: postFiles
      x-idempotent: false
      requestBody:
        required: true
        content:
          multipart/form-data:
            encoding:
              expand: {style: deepObject, explode: true}
              file_link_data: {style: deepObject, explode: true}
              metadata: {contentType: application/json}
            schema:
              type: object
              additionalProperties: false
              required: [file, purpose]
              properties:
                file: {type: string, format: binary}
                purpose: {type: string, enum: [dispute_evidence, identity_document]}
                expand: {type: array, items: {type: string, maxLength: 8}}
                file_link_data:
                  type: object
                  required: [create]
                  properties:
                    create: {type: boolean}
                    expires_at: {type: integer}
                model:
                  anyOf:
                    - {type: string}
                    - {type: string, enum: [whisper-1]}
                metadata:
                  type: object
                  properties:
                    pages: {type: integer}
      responses:
        "200":
          description: The file.
          content:
            application/json:
              schema: {type: object, properties: {id: {type: string}}}
`

// TestMultipartPartsAreValidatedAsTheirProperties: part names that
// nest are read as the list and object they stand for, so a closed schema
// accepts them and their values are checked (kin-openapi's decoder alone
// refused expand[0] as an undefined property and checked nothing in it); a
// text part of an untyped schema is text (kin-openapi read it as null), and
// a part its encoding declares JSON is decoded as JSON.
func TestMultipartPartsAreValidatedAsTheirProperties(t *testing.T) {
	path := filepath.Join(t.TempDir(), "files.yaml")
	if err := os.WriteFile(path, []byte(filesSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := idemgenmock.Start(t, path)
	post := func(parts ...[2]string) (int, string) {
		var b bytes.Buffer
		w := multipart.NewWriter(&b)
		fw, _ := w.CreateFormFile("file", "a.png")
		fw.Write([]byte{0x89, 'P', 'N', 'G', 0xff})
		for _, p := range parts {
			w.WriteField(p[0], p[1])
		}
		w.Close()
		resp, body := do(t, "POST", srv.URL+"/v1/files", b.String(), "Content-Type", w.FormDataContentType())
		return resp.StatusCode, string(body)
	}
	if st, body := post([2]string{"purpose", "dispute_evidence"}, [2]string{"expand[0]", "links"}, [2]string{"expand[1]", "owner"},
		[2]string{"file_link_data[create]", "true"}, [2]string{"file_link_data[expires_at]", "1700000000"},
		[2]string{"model", "whisper-1"}, [2]string{"metadata", `{"pages":3}`}); st != http.StatusOK {
		t.Fatalf("valid nested parts: %d %s, want 200", st, body)
	}
	for name, bad := range map[string][][2]string{
		"an item too long":            {{"purpose", "dispute_evidence"}, {"expand[0]", "far-too-long"}},
		"a boolean that is not":       {{"purpose", "dispute_evidence"}, {"file_link_data[create]", "maybe"}},
		"an undeclared member":        {{"purpose", "dispute_evidence"}, {"file_link_data[create]", "true"}, {"other[x]", "1"}},
		"a missing required":          {{"expand[0]", "links"}},
		"a JSON part of another type": {{"purpose", "dispute_evidence"}, {"metadata", `{"pages":"three"}`}},
	} {
		if st, body := post(bad...); st != http.StatusBadRequest || !strings.Contains(body, "invalid-request") {
			t.Errorf("%s: %d %s, want a 400 invalid-request", name, st, body)
		}
	}
}

// TestHostileMultipartIsBounded: a part name nested past the form depth
// and a body of more parts than the mock reads are refused, in bounded
// work, not decoded.
func TestHostileMultipartIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "files.yaml")
	if err := os.WriteFile(path, []byte(filesSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := idemgenmock.Start(t, path)
	send := func(names []string) (int, string) {
		var b bytes.Buffer
		w := multipart.NewWriter(&b)
		w.SetBoundary("b") // parts of 50 bytes: 10,000 fit the 1 MiB bound
		w.WriteField("purpose", "dispute_evidence")
		fw, _ := w.CreateFormFile("file", "a.png")
		fw.Write([]byte("x"))
		for _, n := range names {
			w.WriteField(n, "1")
		}
		w.Close()
		resp, body := do(t, "POST", srv.URL+"/v1/files", b.String(), "Content-Type", w.FormDataContentType())
		return resp.StatusCode, string(body)
	}
	deep := "file_link_data" + strings.Repeat("[a]", 40)
	if st, body := send([]string{deep}); st != http.StatusBadRequest {
		t.Errorf("a name 40 deep: %d %s, want 400", st, body)
	}
	many := make([]string, 10001)
	for i := range many {
		many[i] = "e" + strconv.Itoa(i%10)
	}
	if st, body := send(many); st != http.StatusBadRequest {
		t.Errorf("10,003 parts: %d %.200s, want 400", st, body)
	}
}
