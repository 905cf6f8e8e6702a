package lsptest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// server connects a client speaking profile to a bare server end, on
// which the test sends what gemini-ls would.
func server(t *testing.T, profile Profile) (*Client, jsonrpc2.Conn) {
	t.Helper()
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	c := New(t, pipeConn{clientIn, clientOut, clientIn.Close}, profile)
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(pipeConn{serverIn, serverOut, serverIn.Close}))
	conn.Go(t.Context(), func(context.Context, *jsonrpc2.Request) (any, error) { return nil, nil })
	t.Cleanup(func() { _ = conn.Close() })
	return c, conn
}

// A client with language features declares them and answers
// gemini/languageFeature with what the test's handler says; one without
// answers MethodNotFound, and one with no handler -32001.
func TestLanguageFeaturesAnswerAsTheTestSays(t *testing.T) {
	p := VSCode().WithLanguageFeatures()
	var caps struct {
		Experimental struct {
			Gemini struct {
				LanguageFeatures bool `json:"languageFeatures"`
			} `json:"gemini"`
		} `json:"experimental"`
	}
	if err := json.Unmarshal(p.Capabilities, &caps); err != nil || !caps.Experimental.Gemini.LanguageFeatures {
		t.Errorf("capabilities %s do not declare experimental.gemini.languageFeatures", p.Capabilities)
	}
	params := map[string]any{"operation": "hover", "textDocument": map[string]string{"uri": "file:///w/a.go"}, "position": map[string]int{"line": 1, "character": 2}}

	c, conn := server(t, p)
	var got json.RawMessage
	c.OnLanguageFeature = func(_ context.Context, params json.RawMessage) (any, error) {
		got = params
		return map[string]any{"contents": "func f()"}, nil
	}
	var res map[string]any
	if _, err := conn.Call(t.Context(), "gemini/languageFeature", params, &res); err != nil || res["contents"] != "func f()" {
		t.Errorf("answer %v, %v; want the handler's", res, err)
	}
	var sent map[string]any
	if err := json.Unmarshal(got, &sent); err != nil || string(mustJSON(t, sent)) != string(mustJSON(t, params)) {
		t.Errorf("the handler got %s, want %s", got, mustJSON(t, params))
	}

	c.OnLanguageFeature = nil
	if _, err := conn.Call(t.Context(), "gemini/languageFeature", params, &res); code(err) != -32001 {
		t.Errorf("without a handler: %v, want -32001", err)
	}

	_, without := server(t, VSCode())
	if _, err := without.Call(t.Context(), "gemini/languageFeature", params, &res); code(err) != jsonrpc2.MethodNotFound {
		t.Errorf("without the capability: %v, want MethodNotFound", err)
	}
}

func code(err error) jsonrpc2.Code {
	var rpcErr *jsonrpc2.Error
	if errors.As(err, &rpcErr) {
		return rpcErr.Code
	}
	return 0
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
