package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"
)

// The line layer in front of the SDK's own connection: every request the
// client sends is answered, by the method or by wire's error, whatever
// the line holds besides.

// sdkBehindWire is a wire in front of a real SDK connection whose every
// method answers null, as serve sets them up; what either writes arrives
// on answers, a line at a time.
type sdkBehindWire struct {
	client  io.WriteCloser
	answers chan []byte
	read    [][]byte    // answers read, not yet asked for
	called  chan string // each method the SDK's handler ran
}

func startSDKBehindWire(tb testing.TB) *sdkBehindWire {
	tb.Helper()
	in, client := io.Pipe()
	fromAgent, out := io.Pipe()
	fromWire, toSDK := io.Pipe()
	u := &sdkBehindWire{client: client, answers: make(chan []byte, 16), called: make(chan string, 16)}
	writer := newLockedWriter(out)
	conn := sdk.NewConnection(func(_ context.Context, method string, _ json.RawMessage) (any, *sdk.RequestError) {
		u.called <- method
		return nil, nil
	}, writer, fromWire)
	conn.SetLogger(slogFor(zap.NewNop()))
	go newWire(writer, zap.NewNop()).serve(in, toSDK)
	done := make(chan struct{})
	go func() {
		lines := bufio.NewScanner(fromAgent)
		lines.Buffer(nil, 1<<20)
		for lines.Scan() {
			select {
			case u.answers <- bytes.Clone(lines.Bytes()):
			case <-done:
				return
			}
		}
	}()
	tb.Cleanup(func() { close(done); client.Close(); fromAgent.Close() })
	return u
}

// send writes line as the client would.
func (u *sdkBehindWire) send(tb testing.TB, line string) {
	tb.Helper()
	if _, err := io.WriteString(u.client, line+"\n"); err != nil {
		tb.Fatal(err)
	}
}

// answerTo waits for the answer whose id is id (raw JSON), failing tb if
// none comes: the client would wait forever.
func (u *sdkBehindWire) answerTo(tb testing.TB, id json.RawMessage, request string) wireError {
	tb.Helper()
	want := jsonValue(id)
	for i, line := range u.read {
		var a wireError
		if json.Unmarshal(line, &a) == nil && jsonValue(a.ID) == want {
			u.read = append(u.read[:i], u.read[i+1:]...)
			return a
		}
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case line := <-u.answers:
			var a wireError
			if json.Unmarshal(line, &a) == nil && jsonValue(a.ID) == want {
				return a
			}
			u.read = append(u.read, line)
		case <-deadline:
			tb.Fatalf("no answer to %.300q", request)
			return wireError{}
		}
	}
}

// jsonValue is raw's value, in a form that compares: numbers as written.
func jsonValue(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return "unreadable " + string(raw)
	}
	return fmt.Sprintf("%T %v", v, v)
}

// A request the SDK cannot read, as one whose error member is not a
// JSON-RPC error, is answered with an invalid request, with its id, not
// dropped; the connection goes on.
func TestWireAnswersRequestsTheSDKCannotRead(t *testing.T) {
	u := startSDKBehindWire(t)
	for i, c := range []struct{ extra, why string }{
		{`"error":"x"`, "error must be a JSON-RPC error object, with an integer code and a string message"},
		{`"error":{"code":"x","message":"m"}`, "error must be a JSON-RPC error object"},
		{`"error":{"code":1.5,"message":"m"}`, "error must be a JSON-RPC error object"},
		{`"error":{"code":1,"message":2}`, "error must be a JSON-RPC error object"},
		{`"ERROR":[]`, "error must be a JSON-RPC error object"},
		{`"error":5,"error":{"code":1,"message":"m"}`, "error must be a JSON-RPC error object"},
		{`"method":7,"method":"gemini/x"`, "method cannot be a JSON number"},
		{`"jsonrpc":2,"jsonrpc":"2.0"`, `jsonrpc must be "2.0"`},
		{`"jsonrpc":2`, `jsonrpc must be "2.0"`},
		{`"method":null`, "method must be a non-empty string"},
	} {
		id := fmt.Sprint(i + 1)
		line := `{"jsonrpc":"2.0","id":` + id + `,"method":"gemini/x","params":{},` + c.extra + `}`
		u.send(t, line)
		a := u.answerTo(t, json.RawMessage(id), line)
		data, _ := a.Error.Data.(map[string]any)
		if a.Error.Code != codeInvalidRequest || !strings.Contains(fmt.Sprint(data["error"]), c.why) {
			t.Errorf("%s: answered %+v, want an invalid request saying %q", line, a.Error, c.why)
		}
	}
	// What the SDK reads, an error member it can read or null included,
	// reaches the method.
	for i, extra := range []string{`"error":null`, `"error":{"code":1,"message":"m","data":[1]}`, `"result":5`} {
		id := fmt.Sprint(100 + i)
		line := `{"jsonrpc":"2.0","id":` + id + `,"method":"gemini/x","params":{},` + extra + `}`
		u.send(t, line)
		if a := u.answerTo(t, json.RawMessage(id), line); a.Error.Code != 0 {
			t.Errorf("%s: answered %+v, want the method's answer", line, a.Error)
		}
		if m := <-u.called; m != "gemini/x" {
			t.Errorf("%s: the SDK ran %q", line, m)
		}
	}
}

// FuzzWireAnswersRequests: whatever a line holds, when it is a request (a
// method member and an id that is a string or a number) it is answered,
// with its id, by the SDK's method or by wire's error; it is never
// dropped, nor does it end the connection.
//
//	go test -run '^$' -fuzz FuzzWireAnswersRequests ./internal/acp/
func FuzzWireAnswersRequests(f *testing.F) {
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","id":"a","method":"session/new","params":{},"error":"x"}`,
		`{"jsonrpc":"2.0","id":2,"method":"x","error":{"code":1,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":3,"method":null}`,
		`{"jsonrpc":2,"id":4,"method":"x"}`,
		`{"jsonrpc":"2.0","id":5,"method":"x","params":"p"}`,
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`,
		`{"jsonrpc":"2.0","id":6,"result":null}`,
		`{"jsonrpc":"2.0","id":-7e3,"Method":"x","Error":[]}`,
		`[{"jsonrpc":"2.0","id":8,"method":"x"}]`,
		`not json`,
	} {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\r\n") || strings.Contains(line, "sentinel") {
			return // one line; the sentinel's id is the test's
		}
		u := startSDKBehindWire(t)
		u.send(t, line)
		// Lines are taken in order: once the sentinel is answered, any
		// error wire had for line is written.
		u.send(t, `{"jsonrpc":"2.0","id":"sentinel","method":"fuzz/sentinel"}`)
		u.answerTo(t, json.RawMessage(`"sentinel"`), "the sentinel after "+line)
		var probe struct{ ID, Method json.RawMessage }
		if json.Unmarshal([]byte(line), &probe) != nil || probe.Method == nil || usableID(probe.ID) == nil {
			return
		}
		u.answerTo(t, usableID(probe.ID), line)
	})
}
