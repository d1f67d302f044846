package ledger

import (
	"bytes"
	"crypto/sha256"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"slices"
	"strconv"
)

// hashMultipart hashes a multipart body as its parts parse under boundary:
// for each part its headers (names sorted; Content-Disposition and
// Content-Type by their parsed type and parameters, so name="a" and name=a
// agree) and its content, every field length-prefixed and every list
// counted. A boundary string inside a part's content is content, as the
// server's parser reads it: splitting the bytes at the boundary instead
// let two different uploads hash alike. ok is false for a body that does
// not parse, which Fingerprint then hashes raw.
func hashMultipart(body []byte, boundary string) (sum []byte, ok bool) {
	h := sha256.New()
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	for {
		p, err := mr.NextRawPart()
		if err == io.EOF {
			return h.Sum(nil), true
		}
		if err != nil {
			return nil, false
		}
		writeField(h, []byte("part"))
		keys := slices.Sorted(maps.Keys(p.Header))
		writeCount(h, len(keys))
		for _, k := range keys {
			writeField(h, []byte(k))
			writeCount(h, len(p.Header[k]))
			for _, v := range p.Header[k] {
				writeHeaderValue(h, k, v)
			}
		}
		content := sha256.New()
		if _, err := io.Copy(content, p); err != nil {
			return nil, false
		}
		writeField(h, content.Sum(nil))
	}
}

// writeHeaderValue writes a part header's value: a Content-Disposition or
// Content-Type that parses as its type and sorted parameters, anything
// else as sent.
func writeHeaderValue(w io.Writer, key, v string) {
	if key == "Content-Disposition" || key == "Content-Type" {
		if mt, params, err := mime.ParseMediaType(v); err == nil {
			writeField(w, []byte("parsed"))
			writeField(w, []byte(mt))
			writeCount(w, len(params))
			for _, k := range slices.Sorted(maps.Keys(params)) {
				writeField(w, []byte(k))
				writeField(w, []byte(params[k]))
			}
			return
		}
	}
	writeField(w, []byte("raw"))
	writeField(w, []byte(v))
}

func writeCount(w io.Writer, n int) { writeField(w, []byte(strconv.Itoa(n))) }
