package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// wireUnderTest is a wire serving lines the test writes to client, its
// requests read from sent.
type wireUnderTest struct {
	w      *wire
	client io.Writer
	sent   *bufio.Reader
}

func startWire(t *testing.T, readLimit int) *wireUnderTest {
	t.Helper()
	in, client := io.Pipe()
	fromWire, out := io.Pipe()
	toSDK, sdkIn := io.Pipe()
	go func() { _, _ = io.Copy(io.Discard, toSDK) }()
	t.Cleanup(func() { client.Close(); fromWire.Close(); toSDK.Close() })
	w := newWire(newLockedWriter(out), zap.NewNop())
	w.readLimit = readLimit
	go w.serve(in, sdkIn)
	return &wireUnderTest{w: w, client: client, sent: bufio.NewReaderSize(fromWire, 1<<20)}
}

// call makes a call in the background and returns the request's id and
// the call's outcome, once it has one.
func (u *wireUnderTest) call(t *testing.T, method string) (int64, <-chan callAnswer) {
	t.Helper()
	done := make(chan callAnswer, 1)
	go func() {
		res, err := u.w.call(t.Context(), method, map[string]string{"path": "/f"})
		done <- callAnswer{res, err}
	}()
	line, err := u.sent.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var req struct {
		ID     int64  `json:"id"`
		Method string `json:"method"`
	}
	if err := json.Unmarshal(line, &req); err != nil || req.Method != method {
		t.Fatalf("the request %s: %v", line, err)
	}
	return req.ID, done
}

func (u *wireUnderTest) answer(t *testing.T, id int64, content string) {
	t.Helper()
	b, _ := json.Marshal(content)
	if _, err := fmt.Fprintf(u.client, `{"jsonrpc":"2.0","id":%d,"result":{"content":%s}}`+"\n", id, b); err != nil {
		t.Fatal(err)
	}
}

func outcome(t *testing.T, done <-chan callAnswer) callAnswer {
	t.Helper()
	select {
	case a := <-done:
		return a
	case <-time.After(30 * time.Second):
		t.Fatal("the call is still waiting for its answer")
		return callAnswer{}
	}
}

// An answer to fs/read_text_file longer than the SDK's lines but within
// the read limit is read; a longer one fails the read, saying so, and
// the wire goes on.
func TestWireReadAnswerLimit(t *testing.T) {
	const limit = 11 << 20
	u := startWire(t, limit)

	id, done := u.call(t, sdk.ClientMethodFsReadTextFile)
	within := strings.Repeat("x", 10<<20+10)
	u.answer(t, id, within)
	if a := outcome(t, done); a.err != nil || len(a.result) < len(within) {
		t.Errorf("an answer within the limit: %d bytes, %v", len(a.result), a.err)
	}

	id, done = u.call(t, sdk.ClientMethodFsReadTextFile)
	u.answer(t, id, strings.Repeat("x", limit))
	a := outcome(t, done)
	if _, ok := errors.AsType[*malformedAnswerError](a.err); !ok || !strings.Contains(a.err.Error(), fmt.Sprintf("longer than %d bytes", limit)) {
		t.Errorf("an answer over the limit: %v", a.err)
	}

	// Other answers keep the SDK's limit.
	id, done = u.call(t, sdk.ClientMethodSessionRequestPermission)
	u.answer(t, id, within)
	if a := outcome(t, done); a.err == nil || !strings.Contains(a.err.Error(), fmt.Sprintf("longer than %d bytes", maxMessage)) {
		t.Errorf("a permission answer over the SDK's limit: %v", a.err)
	}

	id, done = u.call(t, sdk.ClientMethodFsReadTextFile)
	u.answer(t, id, "small")
	if a := outcome(t, done); a.err != nil || string(a.result) != `{"content":"small"}` {
		t.Errorf("the next answer: %s, %v", a.result, a.err)
	}
}

// A call waiting when the client's input ends fails, and so does a later one.
func TestWireEndFailsCalls(t *testing.T) {
	u := startWire(t, maxReadAnswer)
	_, done := u.call(t, sdk.ClientMethodFsWriteTextFile)
	u.client.(io.Closer).Close()
	if a := outcome(t, done); a.err == nil || !strings.Contains(a.err.Error(), "closed the connection") {
		t.Errorf("a call when the input ended: %v", a.err)
	}
	if _, err := u.w.call(context.Background(), sdk.ClientMethodFsWriteTextFile, nil); err == nil {
		t.Error("a call after the input ended was sent")
	}
}

// maxReadAnswer admits the answer to a read of any text file read whole:
// no character of text takes more than six bytes a byte in JSON.
func TestMaxReadAnswerFitsAWholeFile(t *testing.T) {
	var worst float64
	for r := rune(1); r < 0x3000; r++ {
		s := string(r)
		if !workspace.IsText(s) {
			continue
		}
		b, _ := json.Marshal(s)
		worst = max(worst, float64(len(b)-2)/float64(len(s)))
	}
	if need := int(worst*workspace.MaxFileSize) + 1<<10; maxReadAnswer < need {
		t.Errorf("maxReadAnswer is %d bytes; a %d-byte file can take %d (%.0f bytes a byte)", maxReadAnswer, workspace.MaxFileSize, need, worst)
	}
}

// A request of a method wire answers itself (initialize, session/delete)
// is checked as any other: one that is not a valid JSON-RPC request
// (params neither an object nor an array) is an invalid request,
// -32600, never handed to the method, whose answer to params it cannot
// read would be invalid params, -32602.
func TestWireOwnMethodsAnswerMalformedRequestsAsInvalid(t *testing.T) {
	u := startWire(t, maxReadAnswer)
	called := make(chan json.RawMessage, 8)
	u.w.own = &ownMethods{life: t.Context(), handlers: map[string]ownMethod{
		"initialize": func(_ context.Context, params json.RawMessage) (any, error) {
			called <- params
			return map[string]int{"protocolVersion": 1}, nil
		},
	}}
	for i, params := range []string{`"x"`, `5`, `true`} {
		fmt.Fprintf(u.client, `{"jsonrpc":"2.0","id":%d,"method":"initialize","params":%s}`+"\n", i+1, params)
		line, err := u.sent.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		var a struct {
			ID    int `json:"id"`
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line, &a); err != nil || a.ID != i+1 || a.Error == nil || a.Error.Code != codeInvalidRequest {
			t.Errorf("params %s answered %s, want id %d and code %d", params, line, i+1, codeInvalidRequest)
		}
	}
	fmt.Fprintln(u.client, `{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":1}}`)
	if line, err := u.sent.ReadBytes('\n'); err != nil || !strings.Contains(string(line), `"result":{"protocolVersion":1}`) {
		t.Errorf("a well-formed initialize answered %s, %v", line, err)
	}
	if len(called) != 1 {
		t.Errorf("the method was called %d times, want once (the well-formed request)", len(called))
	}
}
