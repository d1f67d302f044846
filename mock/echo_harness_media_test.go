package mock

// echoMediaSource is echo_media.go of the harness program: what the echo
// check reads and compares for the answers that are not one decoded value.
//
//   - A stream: the echo handler sends the call's Events (SSE ids 1, 2, 3
//     on an event stream; data alone on the other framings) and returns;
//     the harness reads the client's *idemrt.Stream[T] to its clean end and
//     compares the events and their ids exactly.
//   - A download: the handler returns an *idemsrv.Download of known bytes
//     (not valid UTF-8) and the call's DownloadType; the harness reads the
//     client's *idemrt.Body to its end and compares the bytes and
//     Body.ContentType exactly.
//   - A result of several media types: the handler sets ContentType to
//     idemsrv.MediaType(ctx), the type the server picked, as a handler
//     answering one of them does.
//   - A multipart file: its content is compared by its bytes. One file per
//     document goes without a Content-Type (the first of the first
//     multipart call): the client sends the type the spec's encoding
//     declares for it, else application/octet-stream, and the handler
//     must receive that type; every other file names its type (the
//     declared one, else text/plain) and the handler must receive it.
const echoMediaSource = `package main

import (
	"fmt"
	"io"
	"reflect"
	"strings"

	idemrt "github.com/idemgen/idemgen/runtime"
)

// download is what a download carried: the handler's, or the client's.
type download struct {
	ContentType string
	Bytes       []byte
}

// streamed is what a stream carried: the events and their SSE ids.
type streamed struct {
	Events any
	IDs    []string
}

// maxEvents bounds the events read from one stream.
const maxEvents = 100

var bodyType = reflect.TypeOf((*idemrt.Body)(nil))

// echoDownloadBytes are the bytes the echo handler serves for op.
func echoDownloadBytes(op string) []byte {
	return []byte("echo download of " + op + "\x00\xff\xfe\r\n")
}

// readDecoded is what the client decoded: the result, a download read to
// its end, or a stream read to its end.
func readDecoded(out []reflect.Value) (reflect.Value, error) {
	if len(out) != 2 {
		return reflect.Value{}, nil
	}
	v := out[0]
	switch {
	case v.Type() == bodyType:
		b := v.Interface().(*idemrt.Body)
		defer b.Close()
		data, err := io.ReadAll(io.LimitReader(b, 1<<24))
		return reflect.ValueOf(download{ContentType: b.ContentType, Bytes: data}), err
	case v.MethodByName("Next").IsValid() && v.MethodByName("Current").IsValid():
		return readStream(v)
	}
	return v, nil
}

// readStream reads an *idemrt.Stream[T] to its end, at most maxEvents.
func readStream(v reflect.Value) (reflect.Value, error) {
	defer v.MethodByName("Close").Call(nil)
	next, cur := v.MethodByName("Next"), v.MethodByName("Current")
	events := reflect.MakeSlice(reflect.SliceOf(cur.Type().Out(0)), 0, 3)
	var ids []string
	for len(ids) < maxEvents && next.Call(nil)[0].Bool() {
		events = reflect.Append(events, cur.Call(nil)[0])
		ids = append(ids, v.MethodByName("Event").Call(nil)[0].Interface().(idemrt.Event).ID)
	}
	if err := v.MethodByName("Err").Call(nil)[0]; !err.IsNil() {
		return reflect.Value{}, fmt.Errorf("the stream failed after %d events: %v", len(ids), err.Interface())
	}
	return reflect.ValueOf(streamed{Events: events.Interface(), IDs: ids}), nil
}

// setMediaType sets the ContentType of a result of several media types
// (an <Op>Result field, untagged) to the type the server picked.
func setMediaType(v reflect.Value, mt string, measured []string) {
	for _, m := range measured {
		if m == "ContentType" {
			return // the declared header, which the server writes
		}
	}
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct || mt == "" {
		return
	}
	if f, ok := v.Type().FieldByName("ContentType"); ok && f.Tag == "" && f.Type.Kind() == reflect.String {
		v.FieldByName("ContentType").SetString(mt)
	}
}

// bareTypes gives the file sent without a Content-Type the type the client
// sends for it: the one the spec's encoding declares, else
// application/octet-stream.
func bareTypes(a reflect.Value, cl call) {
	for a.Kind() == reflect.Pointer && !a.IsNil() {
		a = a.Elem()
	}
	if !cl.BareFile || a.Kind() != reflect.Struct {
		return
	}
	i := firstFile(a)
	if i < 0 {
		return
	}
	name, _, _ := strings.Cut(a.Type().Field(i).Tag.Get("json"), ",")
	ct := cl.PartTypes[name]
	if ct == "" {
		ct = "application/octet-stream"
	}
	f := a.Field(i)
	if f.Kind() == reflect.Pointer {
		f = f.Elem()
	}
	if f.Kind() != reflect.Slice {
		f = reflect.ValueOf([]*idemrt.File{f.Addr().Interface().(*idemrt.File)})
	}
	for j := range f.Len() {
		g := f.Index(j)
		if g.Kind() == reflect.Pointer {
			g = g.Elem()
		}
		if g.FieldByName("ContentType").String() == "" {
			g.FieldByName("ContentType").SetString(ct)
		}
	}
}

// readAgain is the content of a reader compared by its bytes: from its
// start when it seeks (the client has read the caller's).
func readAgain(v reflect.Value) []byte {
	if v.IsNil() {
		return nil
	}
	r := v.Interface().(io.Reader)
	if sk, ok := r.(io.Seeker); ok {
		sk.Seek(0, io.SeekStart)
	}
	b, _ := io.ReadAll(io.LimitReader(r, 1<<24))
	return b
}
`
