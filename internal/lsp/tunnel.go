package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"
)

// Requests as notifications. Some clients answer a server request with
// whatever their handler returns, at once (Neovim's built-in client), but
// a review or a question waits for the user. A client that declares
// experimental.gemini.requestNotifications receives the requests that
// wait for the user as a gemini/request notification, answers each with a
// gemini/response notification when the user has decided, and is told
// with gemini/cancelRequest when nobody waits any more.

// tunneledRequest is gemini/request's params.
type tunneledRequest struct {
	ID     string `json:"id"`
	Method string `json:"method"`
	Params any    `json:"params"`
}

// tunneledCancel is gemini/cancelRequest's params.
type tunneledCancel struct {
	ID string `json:"id"`
}

// tunneledResponse is gemini/response's params.
type tunneledResponse struct {
	ID     *string         `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc2.Error `json:"error"`
}

// tunneled are the gemini/request ids waiting for their gemini/response:
// the asking goroutine opens one, and the read loop takes it with the
// answer.
type tunneled struct {
	mu      sync.Mutex
	waiting map[string]chan tunneledResponse
	last    int // the number of the last id given
}

// open gives a new request id and the channel its answer comes on.
func (t *tunneled) open() (string, <-chan tunneledResponse) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.last++
	id := "g" + strconv.Itoa(t.last)
	answer := make(chan tunneledResponse, 1)
	if t.waiting == nil {
		t.waiting = map[string]chan tunneledResponse{}
	}
	t.waiting[id] = answer
	return id, answer
}

// take removes id and returns its channel, if it still waits; its
// capacity holds the one answer.
func (t *tunneled) take(id string) (chan<- tunneledResponse, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	answer, ok := t.waiting[id]
	delete(t.waiting, id)
	return answer, ok
}

// askUser sends a request that waits for the user's decision: as a
// gemini/request notification to clients that declared it, else as a
// request.
func (s *Server) askUser(ctx context.Context, method string, params, result any) error {
	if !s.features.get().RequestNotifications {
		return s.call(ctx, method, params, result)
	}
	id, answer := s.tunneled.open()
	defer s.tunneled.take(id) // an answer that comes later is dropped

	if err := s.conn.Notify(ctx, "gemini/request", tunneledRequest{ID: id, Method: method, Params: params}); err != nil {
		return fmt.Errorf("sending %s as gemini/request: %w", method, err)
	}
	select {
	case r := <-answer:
		if r.Error != nil {
			return r.Error
		}
		if result == nil || len(r.Result) == 0 {
			return nil
		}
		if err := json.Unmarshal(r.Result, result); err != nil {
			return fmt.Errorf("decoding the client's answer to %s: %w", method, err)
		}
		return nil
	case <-ctx.Done():
		s.notifyClient("gemini/cancelRequest", tunneledCancel{ID: id})
		return ctx.Err()
	}
}

// tunneledAnswer takes a gemini/response to the request it answers. An
// answer nobody waits for (cancelled, or answered twice) is dropped.
func (s *Server) tunneledAnswer(r tunneledResponse) error {
	if r.ID == nil {
		return missingField("id")
	}
	if r.Error != nil && len(r.Result) > 0 && string(r.Result) != "null" {
		return fmt.Errorf("gemini/response %s has both a result and an error", *r.ID)
	}
	answer, ok := s.tunneled.take(*r.ID)
	if !ok {
		s.log.Info("dropping gemini/response nobody waits for", zap.String("id", *r.ID))
		return nil
	}
	answer <- r
	return nil
}
