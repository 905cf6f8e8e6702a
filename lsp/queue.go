package lsp

import (
	"context"

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
