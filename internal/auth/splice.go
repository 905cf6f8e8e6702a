package auth

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
)

// A splice carries the parts of a request body that were encoded before
// from the request's making to its sending. genai writes its body with
// encoding/json, which validates and compacts every json.RawMessage it
// writes, byte by byte: for the declarations, the system instruction and
// the history that every request repeats, that check cost more than
// encoding the rest of the request. The body genai writes holds a short
// placeholder for each part instead, and spliceTransport puts the part in
// its place as the request leaves: the bytes sent are those genai would
// have written (each part is compact JSON as encoding/json writes it).
type splice struct {
	// tag begins every placeholder: a JSON string no request holds
	// otherwise, as it carries a random nonce.
	tag string
	// parts are each slot's part, in pieces sent in turn.
	parts [spliceSlots][][]byte
}

// The parts a body may hold, one slot each, so that genai building the
// body again (it calls the body provider each time) fills the same ones.
const (
	slotTools = iota
	slotSystem
	slotContents
	spliceSlots
)

// newSpliceTag is a placeholder prefix: a JSON string's start and a
// nonce, made once per cache.
func newSpliceTag() string {
	return `"gemini-ls-splice-` + rand.Text() + "-"
}

// hold keeps part in slot and returns the placeholder genai writes.
func (s *splice) hold(slot int, part []byte) json.RawMessage {
	return s.holdPieces(slot, [][]byte{part})
}

// holdPieces is hold of the part the pieces make in turn.
func (s *splice) holdPieces(slot int, pieces [][]byte) json.RawMessage {
	s.parts[slot] = pieces
	return s.placeholder(slot)
}

// textStandIn begins the stand-ins of long texts, as a body holds them.
func (s *splice) textStandIn() string {
	return s.tag + "text-"
}

func (s *splice) placeholder(slot int) json.RawMessage {
	return fmt.Appendf(nil, `%s%d"`, s.tag, slot)
}

// into is body with every held part in its placeholder's place, as
// the segments to send in turn (the parts are not copied); body alone
// when it holds no placeholder (a token request made with the same
// context). A placeholder missing or found twice is an error: what would
// be sent is not the request.
func (s *splice) into(body []byte) (net.Buffers, error) {
	if !bytes.Contains(body, []byte(s.tag)) {
		return net.Buffers{body}, nil
	}
	if bytes.Contains(body, []byte(s.textStandIn())) {
		// genai's own contents went out, with a stand-in for a long text
		// (request.standIns) that only ours put back.
		return nil, fmt.Errorf("the request body holds a stand-in for a text")
	}
	type found struct {
		at, slot, width int
	}
	var places []found
	for slot, part := range s.parts {
		if part == nil {
			continue
		}
		ph := s.placeholder(slot)
		at := bytes.Index(body, ph)
		if at < 0 || bytes.Contains(body[at+len(ph):], ph) {
			return nil, fmt.Errorf("the request body holds its part %d not once", slot)
		}
		places = append(places, found{at, slot, len(ph)})
	}
	slices.SortFunc(places, func(a, b found) int { return cmp.Compare(a.at, b.at) })
	out := make(net.Buffers, 0, 2*len(places)+1)
	rest := 0
	for _, p := range places {
		out = append(append(out, body[rest:p.at]), s.parts[p.slot]...)
		rest = p.at + p.width
	}
	return append(out, body[rest:]), nil
}

type spliceKey struct{}

func withSplice(ctx context.Context, s *splice) context.Context {
	return context.WithValue(ctx, spliceKey{}, s)
}

// spliceTransport sends a request whose context holds a splice with its
// parts put in; every other request as it is.
type spliceTransport struct {
	next http.RoundTripper
}

func (t spliceTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	s, _ := req.Context().Value(spliceKey{}).(*splice)
	if s == nil || req.Body == nil || req.Body == http.NoBody {
		return t.next.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("reading the request body to send: %w", err)
	}
	segments, err := s.into(body)
	if err != nil {
		return nil, fmt.Errorf("making the request body: %w", err)
	}
	size := 0
	for _, b := range segments {
		size += len(b)
	}
	out := req.Clone(req.Context())
	out.ContentLength = int64(size)
	out.GetBody = func() (io.ReadCloser, error) {
		again := slices.Clone(segments) // reading consumes a net.Buffers
		return io.NopCloser(&again), nil
	}
	out.Body, _ = out.GetBody()
	return t.next.RoundTrip(out)
}
