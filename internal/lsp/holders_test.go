package lsp

import (
	"slices"
	"testing"
)

// A gemini.prompt turn that ends after the next turn of its session began
// reporting leaves the next turn's entry, so gemini.cancel still waits for
// the turn it cancels.
func TestReportsEndLeavesTheNextTurnsEntry(t *testing.T) {
	var r reports
	first := r.begin("s1")
	second := r.begin("s1") // the session was free: the next prompt began
	r.end("s1", first)
	if got := r.of("s1"); got != (<-chan struct{})(second) {
		t.Fatalf("after the first turn ended, the session's turn is %v, want the second's", got)
	}
	select {
	case <-first:
	default:
		t.Error("the first turn's channel is not closed")
	}
	if ids := r.sessions(); !slices.Equal(ids, []string{"s1"}) {
		t.Errorf("sessions = %q, want s1", ids)
	}
	r.end("s1", second)
	if r.of("s1") != nil || len(r.sessions()) != 0 {
		t.Errorf("after both ended: of = %v, sessions = %q", r.of("s1"), r.sessions())
	}
}

// Each tunneled request gets an id of its own, and its answer is taken
// once: a second gemini/response for it finds nobody waiting.
func TestTunneledAnswerIsTakenOnce(t *testing.T) {
	var tun tunneled
	id1, answer := tun.open()
	id2, _ := tun.open()
	if id1 == id2 {
		t.Fatalf("two requests share the id %q", id1)
	}
	to, ok := tun.take(id1)
	if !ok {
		t.Fatalf("%s is not waiting", id1)
	}
	to <- tunneledResponse{ID: &id1}
	if r := <-answer; r.ID == nil || *r.ID != id1 {
		t.Errorf("answer = %+v", r)
	}
	if _, ok := tun.take(id1); ok {
		t.Errorf("%s was taken twice", id1)
	}
}
