package idemsrv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	idemrt "github.com/idemgen/idemgen/runtime"
)

// appendEvent appends v framed as one event of framing f to buf. Like the
// client's decoder, it takes a string or []byte event as raw data and
// encodes anything else as JSON.
func appendEvent[T any](buf []byte, f idemrt.Framing, fields EventFields, v T) ([]byte, error) {
	data, raw, err := eventData(v)
	if err != nil {
		return buf, err
	}
	if f != idemrt.FramingSSE && fields != (EventFields{}) {
		return buf, ErrNotEventStream
	}
	switch f {
	case idemrt.FramingJSONLines:
		if raw && bytes.IndexByte(data, '\n') >= 0 {
			return buf, fmt.Errorf("%w (LF)", ErrUnframable)
		}
		return append(append(buf, data...), '\n'), nil
	case idemrt.FramingJSONSeq:
		if raw && bytes.IndexByte(data, 0x1e) >= 0 {
			return buf, fmt.Errorf("%w (RS)", ErrUnframable)
		}
		// RFC 7464: each text after RS, ended by LF.
		return append(append(append(buf, 0x1e), data...), '\n'), nil
	}
	return appendSSE(buf, fields, data)
}

// eventData is v's bytes on the wire, and whether they are raw.
func eventData[T any](v T) ([]byte, bool, error) {
	switch x := any(v).(type) {
	case string:
		return []byte(x), true, nil
	case []byte:
		return x, true, nil
	}
	// encoding/json never writes a raw line break or RS: control
	// characters inside strings are escaped, and a Marshaler's output is
	// compacted.
	b, err := json.Marshal(v)
	return b, false, err
}

// appendSSE appends one text/event-stream event: its fields, then one data
// line per line of data (split at CR LF, CR and LF, the line ends the
// client splits at), then the empty line that dispatches it. The client
// joins the data lines with LF, so data comes back with its line ends as
// LF.
func appendSSE(buf []byte, f EventFields, data []byte) ([]byte, error) {
	if strings.ContainsAny(f.ID, "\r\n\x00") || strings.ContainsAny(f.Type, "\r\n\x00") {
		return buf, ErrBadEventField
	}
	if f.Type != "" {
		buf = append(append(append(buf, "event: "...), f.Type...), '\n')
	}
	if f.ID != "" {
		buf = append(append(append(buf, "id: "...), f.ID...), '\n')
	}
	if f.Retry > 0 {
		buf = append(strconv.AppendInt(append(buf, "retry: "...), f.Retry.Milliseconds(), 10), '\n')
	}
	for {
		buf = append(buf, "data: "...)
		i := bytes.IndexAny(data, "\r\n")
		if i < 0 {
			buf = append(append(buf, data...), '\n')
			break
		}
		buf = append(append(buf, data[:i]...), '\n')
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	return append(buf, '\n'), nil
}
