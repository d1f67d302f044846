package streaming_test

import (
	"bytes"
	"context"
	"io"
	"sync"
	"testing"

	"github.com/idemgen/idemgen/golden/streaming"
	idemsrv "github.com/idemgen/idemgen/server"
)

// speech answers createSpeech both ways: the audio as a download, or
// the same audio in chunks as Server-Sent Events.
type speech struct {
	streaming.Handler
	audio  []byte
	mu     sync.Mutex
	inputs []string
}

func (s *speech) saw(in string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inputs = append(s.inputs, in)
}

func (s *speech) CreateSpeech(_ context.Context, body streaming.SpeechRequest) (*idemsrv.Download, error) {
	s.saw(body.Input)
	return &idemsrv.Download{Content: bytes.NewReader(s.audio), Size: int64(len(s.audio))}, nil
}

func (s *speech) CreateSpeechStream(_ context.Context, body streaming.SpeechRequest, st *idemsrv.Stream[streaming.SpeechChunk]) error {
	s.saw(body.Input)
	for i := 0; i < len(s.audio); i += 4 {
		if err := st.Send(streaming.SpeechChunk{Audio: s.audio[i:min(i+4, len(s.audio))]}); err != nil {
			return err
		}
	}
	return nil
}

// TestServerSpeechDownloadOrStream: one route, two answers chosen by
// Accept: CreateSpeech gets the audio's bytes, CreateSpeechStream the same
// bytes in chunks, and each reaches its own handler method.
func TestServerSpeechDownloadOrStream(t *testing.T) {
	h := &speech{audio: []byte("ID3\x03 some mpeg frames")}
	c := serveFeed(t, h, 0)
	ctx := context.Background()
	body, err := c.CreateSpeech(ctx, streaming.SpeechRequest{Input: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(body)
	body.Close()
	if err != nil || !bytes.Equal(got, h.audio) {
		t.Fatalf("download: %q, %v", got, err)
	}
	st, err := c.CreateSpeechStream(ctx, streaming.SpeechRequest{Input: "again"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var streamed []byte
	n := 0
	for st.Next() {
		streamed = append(streamed, st.Current().Audio...)
		n++
	}
	if st.Err() != nil || !bytes.Equal(streamed, h.audio) || n != 6 {
		t.Fatalf("stream: %d chunks %q, %v", n, streamed, st.Err())
	}
	if len(h.inputs) != 2 || h.inputs[0] != "hello" || h.inputs[1] != "again" {
		t.Errorf("handlers saw %q", h.inputs)
	}
}
