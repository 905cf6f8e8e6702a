package lsp

import (
	"context"
	"sync"

	"go.uber.org/zap"
)

// editQueue lets one proposal at a time talk to the user about an edit
// (showMessageRequest, workspace/applyEdit, its outcome): editors show one
// preview at a time, and the outcome is read from documents nobody else is
// editing for us. A confirmation lasts as long as its prompt: when the
// prompt is cancelled, the request to the client is withdrawn and the next
// proposal goes ahead. A proposal waiting its turn leaves the queue when
// its own prompt is cancelled, so a client that never answers (a user who
// pressed C-g in Emacs) holds up nothing once its prompt is gone.
//
// The invariant: a proposal waits only for the outcome of the change ahead
// of it (applied, declined, failed, its prompt cancelled, the connection
// gone), never for anything that may not come. A change taken as applied
// on the client's word leaves the queue before its didChange arrives (see
// decide); until then it is unsynced, and a later change to the document
// prepared from the text gemini-ls still has is answered stale at once.
type editQueue struct {
	turn chan struct{} // holds a token while a proposal has its turn
}

func newEditQueue() editQueue { return editQueue{turn: make(chan struct{}, 1)} }

// wait blocks until it is the caller's turn, and returns the function that
// ends it; or returns ctx's error if ctx ends first. Waiters get their turn
// in the order they came. onWait is called when the caller has to wait.
func (q editQueue) wait(ctx context.Context, onWait func()) (done func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	done = func() { <-q.turn }
	select {
	case q.turn <- struct{}{}:
		return done, nil
	default:
		onWait()
	}
	select {
	case q.turn <- struct{}{}:
		return done, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// awaitEditTurn waits for the turn of the proposal to change path.
func (s *Server) awaitEditTurn(ctx context.Context, path string) (done func(), err error) {
	return s.edits.wait(ctx, func() {
		s.log.Debug("waiting for the change in flight to be decided", zap.String("path", path))
	})
}

// notShownReason is what the model is told about a change whose prompt was
// cancelled while it waited for its turn.
const notShownReason = "the prompt was cancelled while this change waited for the user to decide on another one, so it was never shown to the user"

// unsyncedEdits are the edits taken as applied on the client's word whose
// didChange has not come yet, by path: the editor holds text gemini-ls has
// not seen. A change prepared from what gemini-ls has meanwhile would be
// shown against text the editor no longer holds (refused, or misplaced by
// a client that does not check versions), and the didChange it would need
// to wait for may never come; such a change is stale.
type unsyncedEdits struct {
	mu     sync.Mutex
	byPath map[string]*unsyncedEdit
}

// unsyncedEdit: the editor holds after, on its word, while gemini-ls has
// the document at version (-1: not open).
type unsyncedEdit struct {
	after   string
	version int32
}

// add records e at path until the returned remove is called.
func (u *unsyncedEdits) add(path string, e unsyncedEdit) (remove func()) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.byPath == nil {
		u.byPath = map[string]*unsyncedEdit{}
	}
	entry := &e
	u.byPath[path] = entry
	return func() {
		u.mu.Lock()
		defer u.mu.Unlock()
		if u.byPath[path] == entry {
			delete(u.byPath, path)
		}
	}
}

// landingPaths are the paths of the edits being landed, from their turn
// to their outcome. A didChange of one of them meanwhile is the agent's
// proposal arriving (or the editor's review putting the original back,
// dropping a hunk), not the user's typing: it is kept out of completion's
// recent edits, which would otherwise show the model the agent's change
// as the user's.
type landingPaths struct {
	mu    sync.Mutex
	count map[string]int
}

// add marks path as landing until the returned remove is called.
func (l *landingPaths) add(path string) (remove func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.count == nil {
		l.count = map[string]int{}
	}
	l.count[path]++
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.count[path]--; l.count[path] <= 0 {
			delete(l.count, path)
		}
	}
}

// has reports whether an edit of any of paths is landing.
func (l *landingPaths) has(paths ...string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range paths {
		if l.count[p] > 0 {
			return true
		}
	}
	return false
}

// get returns the unsynced edit of path, if any.
func (u *unsyncedEdits) get(path string) (unsyncedEdit, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	e, ok := u.byPath[path]
	if !ok {
		return unsyncedEdit{}, false
	}
	return *e, true
}

// unsyncedReason is what the model is told of a change to a document whose
// last edit the editor has not synchronised yet.
const unsyncedReason = "the editor applied another change to the file meanwhile and has not synchronised it with gemini-ls yet"
