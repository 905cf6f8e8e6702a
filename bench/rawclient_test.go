package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.lsp.dev/uri"
)

// rawEditor is an LSP client that numbers and writes its requests itself,
// so that it can cancel one by its id ($/cancelRequest) and keep going
// while it is answered, as an editor sends completion requests. Every
// frame is timestamped: a request when its write starts, an answer when
// its last byte was read. Requests the server makes are answered null
// (window/workDoneProgress/create and the like), or by onRequest when set.
type rawEditor struct {
	wmu sync.Mutex // one frame at a time
	w   io.Writer

	mu      sync.Mutex
	nextID  int64
	waiting map[int64]chan reply
	// onReply, when set, sees every answer as it is read, before the
	// caller does, in the reader's goroutine.
	onReply func(id int64, r reply)
	// onRequest, when set before the first frame is read, answers the
	// server's requests (a language server's workspace/configuration
	// wants an array); it is called in its own goroutine.
	onRequest func(method string, params json.RawMessage) any
	readErr   error
}

// reply is the answer to a request, and when it was read.
type reply struct {
	At     time.Time
	Result json.RawMessage
	Error  *rpcError
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%s (%d)", e.Message, e.Code) }

// codeRequestCancelled is LSP's answer to a request the client cancelled.
const codeRequestCancelled = -32800

func newRawEditor(rwc io.ReadWriteCloser) *rawEditor {
	e := &rawEditor{w: rwc, waiting: map[int64]chan reply{}}
	go e.read(rwc)
	return e
}

// read splits the server's output into frames and dispatches them until
// the stream ends.
func (e *rawEditor) read(r io.Reader) {
	var s splitter
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			at := time.Now()
			if ferr := s.feed(buf[:n], func(body []byte) { e.dispatch(body, at) }); ferr != nil {
				err = ferr
			}
		}
		if err != nil {
			e.mu.Lock()
			e.readErr = err
			for id, ch := range e.waiting {
				close(ch)
				delete(e.waiting, id)
			}
			e.mu.Unlock()
			return
		}
	}
}

func (e *rawEditor) dispatch(body []byte, at time.Time) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if json.Unmarshal(body, &m) != nil {
		return
	}
	switch {
	case m.Method != "" && len(m.ID) > 0:
		// A request of the server's: answered (null unless onRequest
		// says otherwise) from another goroutine so that reading goes on.
		go func() {
			var result any
			if e.onRequest != nil {
				result = e.onRequest(m.Method, m.Params)
			}
			_, _ = e.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
		}()
	case m.Method == "" && len(m.ID) > 0:
		var id int64
		if json.Unmarshal(m.ID, &id) != nil {
			return
		}
		r := reply{At: at, Result: m.Result, Error: m.Error}
		e.mu.Lock()
		ch, ok := e.waiting[id]
		delete(e.waiting, id)
		hook := e.onReply
		e.mu.Unlock()
		if hook != nil {
			hook(id, r)
		}
		if ok {
			ch <- r
		}
	}
}

// write sends one frame and returns when its write started.
func (e *rawEditor) write(msg any) (time.Time, error) {
	body, err := json.Marshal(msg)
	if err != nil {
		return time.Time{}, err
	}
	frame := append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body))), body...)
	e.wmu.Lock()
	defer e.wmu.Unlock()
	at := time.Now()
	_, err = e.w.Write(frame)
	return at, err
}

// send writes a request and returns its id, when it was sent and where
// its answer comes.
func (e *rawEditor) send(method string, params any) (int64, time.Time, <-chan reply, error) {
	return e.sendAs(method, params, nil)
}

// sendAs is send, calling numbered (when set) with the request's id
// before the request is written, so its answer cannot come first.
func (e *rawEditor) sendAs(method string, params any, numbered func(id int64)) (int64, time.Time, <-chan reply, error) {
	e.mu.Lock()
	if e.readErr != nil {
		e.mu.Unlock()
		return 0, time.Time{}, nil, fmt.Errorf("the server's output ended: %w", e.readErr)
	}
	e.nextID++
	id := e.nextID
	ch := make(chan reply, 1)
	e.waiting[id] = ch
	e.mu.Unlock()
	if numbered != nil {
		numbered(id)
	}
	at, err := e.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return id, at, ch, err
}

// notify writes a notification and returns when it was sent.
func (e *rawEditor) notify(method string, params any) (time.Time, error) {
	return e.write(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// cancel sends $/cancelRequest for id.
func (e *rawEditor) cancel(id int64) (time.Time, error) {
	return e.notify("$/cancelRequest", map[string]any{"id": id})
}

// wait returns the answer from ch.
func wait(ctx context.Context, method string, ch <-chan reply) (reply, error) {
	select {
	case r, ok := <-ch:
		if !ok {
			return reply{}, fmt.Errorf("%s: the server's output ended before its answer", method)
		}
		return r, nil
	case <-ctx.Done():
		return reply{}, fmt.Errorf("waiting for the answer to %s: %w", method, ctx.Err())
	}
}

// call sends a request and decodes its answer into result.
func (e *rawEditor) call(ctx context.Context, method string, params, result any) error {
	_, _, ch, err := e.send(method, params)
	if err != nil {
		return err
	}
	r, err := wait(ctx, method, ch)
	if err != nil {
		return err
	}
	if r.Error != nil {
		return fmt.Errorf("%s: %w", method, r.Error)
	}
	if result != nil {
		return json.Unmarshal(r.Result, result)
	}
	return nil
}

// initialize starts the session over roots, with the capabilities an
// editor with inline completion declares (UTF-16 positions).
func (e *rawEditor) initialize(ctx context.Context, roots []string) error {
	folders := make([]map[string]string, len(roots))
	for i, r := range roots {
		folders[i] = map[string]string{"uri": string(uri.File(r)), "name": filepath.Base(r)}
	}
	params := map[string]any{
		"processId":        os.Getpid(),
		"clientInfo":       map[string]string{"name": "bench typist"},
		"workspaceFolders": folders,
		"capabilities": map[string]any{
			"textDocument": map[string]any{
				"synchronization":  map[string]any{"dynamicRegistration": false},
				"inlineCompletion": map[string]any{"dynamicRegistration": false},
			},
			"general": map[string]any{"positionEncodings": []string{"utf-16"}},
		},
	}
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if err := e.call(ctx, "initialize", params, &res); err != nil {
		return err
	}
	if _, ok := res.Capabilities["inlineCompletionProvider"]; !ok {
		return fmt.Errorf("initialize: no inlineCompletionProvider in the capabilities")
	}
	_, err := e.notify("initialized", map[string]any{})
	return err
}

func (e *rawEditor) open(path, text string) error {
	_, err := e.notify("textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{"uri": uri.File(path), "languageId": "go", "version": 1, "text": text},
	})
	return err
}

// shutdown ends the session, and the process with it.
func (e *rawEditor) shutdown(ctx context.Context) error {
	if err := e.call(ctx, "shutdown", nil, nil); err != nil {
		return err
	}
	_, err := e.notify("exit", nil)
	return err
}

// inlineItems is textDocument/inlineCompletion's answer.
type inlineItems struct {
	Items []struct {
		InsertText string `json:"insertText"`
	} `json:"items"`
}

func inlineParams(path string, line, char, trigger int) map[string]any {
	return map[string]any{
		"textDocument": map[string]any{"uri": uri.File(path)},
		"position":     map[string]any{"line": line, "character": char},
		"context":      map[string]any{"triggerKind": trigger},
	}
}
