package lsp

import (
	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/jsonrpc2"
)

// payloadCodec encodes the params and results gemini-ls sends as jsonrpc2's
// default codec does, except that a string holding invalid UTF-8 (text read
// from a file in another encoding, shown in a diff) goes out with U+FFFD in
// place of the bad bytes. The default codec refuses such a string, and the
// whole message would be lost. Together with the stream's repair of the
// envelope (see stream.writeRaw), every string that goes out is UTF-8.
type payloadCodec struct{ jsonrpc2.JSONCodec }

// Marshal encodes v strictly first, so only a payload that needs the
// repair pays for a second encoding.
func (c payloadCodec) Marshal(v any) ([]byte, error) {
	if b, err := c.JSONCodec.Marshal(v); err == nil {
		return b, nil
	}
	return json.Marshal(v, jsontext.EscapeForHTML(false), jsontext.AllowInvalidUTF8(true))
}
