package runtime

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"sync/atomic"

	"github.com/idemgen/idemgen/runtime/internal/shared"
)

// File is a binary multipart file part: the file name and Content-Type the
// part declares ("" for the part's declared type, else
// application/octet-stream) and its content. Content that is an
// io.ReadSeeker (an *os.File, a *bytes.Reader) is rewound to where it stood
// for every attempt; any other io.Reader is buffered up to the client's
// limit (WithBufferLimit, Policy.MaxBuffer) so it can be resent, and above
// it the call is single-attempt once a byte of it was sent
// (ErrBodyNotReplayable). The engine never closes Content: the caller does.
type File = shared.File

// ErrBodyNotReplayable is the Reason of a call whose request body is a plain
// io.Reader larger than the buffering limit: once its first byte was sent
// it cannot be sent again, so the call was not retried when it could have
// been. Pass an io.ReadSeeker (or raise WithBufferLimit) to make it
// replayable.
var ErrBodyNotReplayable = errors.New("the request body is a reader above the buffering limit (WithBufferLimit) and was partly sent: it cannot be resent, so the call was not retried")

// DefaultMaxBuffer is the default Policy.MaxBuffer: 8 MiB.
const DefaultMaxBuffer = 8 << 20

// piece is one prepared part of a streamed body.
type piece struct {
	bytes []byte
	// seeker is rewound to start for every attempt, and size bytes read.
	seeker      io.ReadSeeker
	start, size int64
	// once is a reader above the buffering limit: sent at most once.
	once *countingReader
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// bufferLimit is WithBufferLimit's, else the policy's.
func (c *call) bufferLimit() int64 {
	if c.r.maxBuffer > 0 {
		return c.r.maxBuffer
	}
	return c.pol.MaxBuffer
}

// streamBody is a streamed body prepared for replay: its pieces, and its
// length (-1 when unknown). It hangs off the call by a pointer, as few calls
// stream, so that the call state of the others stays small.
type streamBody struct {
	pieces []piece
	length int64
}

// prepareStream turns the request's pieces into replayable ones: seekers
// remember where they start and their size; plain readers are read up to
// the limit, and a longer one stays a reader sent at most once.
func (c *call) prepareStream() error {
	sb := &streamBody{pieces: make([]piece, 0, len(c.req.Stream))}
	c.stream = sb
	for _, p := range c.req.Stream {
		pc, err := c.preparePiece(p)
		if err != nil {
			return err
		}
		switch {
		case pc.once != nil:
			sb.length = -1
		case sb.length >= 0 && pc.seeker != nil:
			sb.length += pc.size
		case sb.length >= 0:
			sb.length += int64(len(pc.bytes))
		}
		sb.pieces = append(sb.pieces, pc)
	}
	return nil
}

// pieces is the prepared stream's pieces (none for a call without one).
func (c *call) pieces() []piece {
	if c.stream == nil {
		return nil
	}
	return c.stream.pieces
}

func (c *call) preparePiece(p shared.Piece) (piece, error) {
	if p.Reader == nil {
		return piece{bytes: p.Bytes}, nil
	}
	if s, ok := p.Reader.(io.ReadSeeker); ok {
		start, err := s.Seek(0, io.SeekCurrent)
		end, err2 := s.Seek(0, io.SeekEnd)
		_, err3 := s.Seek(start, io.SeekStart)
		if err == nil && err2 == nil && err3 == nil {
			return piece{seeker: s, start: start, size: end - start}, nil
		}
	}
	limit := c.bufferLimit()
	b, err := readAtMost(p.Reader, 0, limit)
	if err != nil {
		return piece{}, err
	}
	if int64(len(b)) <= limit {
		return piece{bytes: b}, nil
	}
	return piece{once: &countingReader{r: io.MultiReader(bytes.NewReader(b), p.Reader)}}, nil
}

// replayable reports whether the body can be sent again: it has no reader
// sent at most once, or that reader was not read yet.
func (c *call) replayable() bool {
	pieces := c.pieces()
	for i := range pieces {
		if o := pieces[i].once; o != nil && o.n.Load() > 0 {
			return false
		}
	}
	return true
}

// rewindable reports whether every attempt of the body can be rebuilt,
// which net/http's GetBody needs.
func (c *call) rewindable() bool {
	pieces := c.pieces()
	for i := range pieces {
		if pieces[i].once != nil {
			return false
		}
	}
	return true
}

// newStream assembles the body of one attempt: fixed bytes, rewound
// seekers, and a reader sent at most once.
func (c *call) newStream() (io.ReadCloser, error) {
	pieces := c.pieces()
	rs := make([]io.Reader, 0, len(pieces))
	for i := range pieces {
		p := &pieces[i]
		switch {
		case p.seeker != nil:
			if _, err := p.seeker.Seek(p.start, io.SeekStart); err != nil {
				return nil, err
			}
			rs = append(rs, io.LimitReader(p.seeker, p.size))
		case p.once != nil:
			if p.once.n.Load() > 0 {
				return nil, ErrBodyNotReplayable
			}
			rs = append(rs, p.once)
		default:
			rs = append(rs, bytes.NewReader(p.bytes))
		}
	}
	if c.stream.length == 0 {
		return http.NoBody, nil
	}
	return io.NopCloser(io.MultiReader(rs...)), nil
}
