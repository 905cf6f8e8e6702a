package auth_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/auth"
)

// structSchema is a JSON schema held in a struct, as an MCP server's
// may be: its fields are not in the order of their names.
type structSchema struct {
	Type       string         `json:"type"`
	Properties map[string]any `json:"properties"`
}

// declarationsOf are function declarations with what genai's encoding
// could change: nested schemas, numbers, characters JSON escapes, a
// schema held in a struct, and a Parameters schema beside
// ParametersJsonSchema ones.
func declarationsOf(description string) []*genai.FunctionDeclaration {
	return []*genai.FunctionDeclaration{
		{
			Name:        "read_file",
			Description: description,
			ParametersJsonSchema: map[string]any{
				"type":     "object",
				"required": []string{"path"},
				"properties": map[string]any{
					"path":  map[string]any{"type": "string", "description": "A path <like> \"a/b\" & 'c' — ünïcode\n"},
					"limit": map[string]any{"type": "integer", "minimum": 1, "maximum": 1e6, "default": 2000.5},
					"tags":  map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []any{"x", "y"}}},
				},
				"additionalProperties": false,
			},
		},
		{
			Name:                 "mcp_search",
			Description:          "Searches.",
			ParametersJsonSchema: structSchema{Type: "object", Properties: map[string]any{"q": map[string]any{"type": "string"}}},
		},
		{
			Name:        "glob",
			Description: "Finds files.",
			Parameters: &genai.Schema{
				Type:       genai.TypeObject,
				Properties: map[string]*genai.Schema{"pattern": {Type: genai.TypeString, Description: "A glob."}},
				Required:   []string{"pattern"},
			},
		},
	}
}

// sendTools sends one streamed request declaring tools through gen and
// returns the body the server received.
func sendTools(t *testing.T, srv *geminitest.Server, gen auth.ContentGenerator, config *genai.GenerateContentConfig) geminitest.Request {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	before := len(srv.Requests())
	srv.Push(geminitest.TextTurn("ok"))
	for _, err := range gen.GenerateContentStream(ctx, "gemini-x", genai.Text("hello"), config) {
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != before+1 {
		t.Fatalf("%d requests, want %d", len(reqs), before+1)
	}
	return reqs[before]
}

// The generator sends the function declarations, which it encodes once
// each, byte for byte as genai encodes them; a new declaration is encoded
// in its turn; tools genai converts (Google Search) are left to it; the
// config passed in is not changed; and the request keeps its key.
func TestDeclarationsSentAsGenaiEncodesThem(t *testing.T) {
	srv := geminitest.NewTestServer(t)
	a := auth.Auth{Type: auth.GeminiAPIKey, Version: "1.2.3", Config: genai.ClientConfig{
		APIKey: "k", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	}}
	gen := auth.NewGenerator(a)
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: "k", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	})
	if err != nil {
		t.Fatal(err)
	}
	sameBody := func(what string, config *genai.GenerateContentConfig) {
		t.Helper()
		got := sendTools(t, srv, gen, config)
		want := sendTools(t, srv, client.Models, config)
		if string(got.Body) != string(want.Body) {
			t.Errorf("%s: body\n%s\nwant genai's\n%s", what, got.Body, want.Body)
		}
		if got.APIKey != "k" {
			t.Errorf("%s: x-goog-api-key %q", what, got.APIKey)
		}
	}

	tools := []*genai.Tool{{FunctionDeclarations: declarationsOf("Reads a file.")}}
	config := &genai.GenerateContentConfig{Tools: tools, SystemInstruction: genai.NewContentFromText("be brief", genai.RoleUser)}
	sameBody("first request", config)
	if len(config.Tools) != 1 || config.Tools[0] != tools[0] || config.HTTPOptions != nil {
		t.Errorf("the config was changed: %+v", config)
	}
	sameBody("the same declarations again", config)
	sameBody("a subset of them", &genai.GenerateContentConfig{Tools: []*genai.Tool{{FunctionDeclarations: tools[0].FunctionDeclarations[1:]}}})

	renewed := []*genai.Tool{{FunctionDeclarations: append(declarationsOf("Reads a file, renewed."), tools[0].FunctionDeclarations[1])}}
	sameBody("a new declaration", &genai.GenerateContentConfig{Tools: renewed})
	if d := declaration(sendTools(t, srv, gen, &genai.GenerateContentConfig{Tools: renewed}), "read_file"); d == nil || d.Description != "Reads a file, renewed." {
		t.Errorf("a new declaration was sent as %+v", d)
	}

	sameBody("two tools", &genai.GenerateContentConfig{Tools: []*genai.Tool{tools[0], {FunctionDeclarations: renewed[0].FunctionDeclarations[:1]}}})
	search := &genai.GenerateContentConfig{Tools: []*genai.Tool{{GoogleSearch: &genai.GoogleSearch{}}}}
	sameBody("Google Search", search)
	sameBody("declarations and Google Search", &genai.GenerateContentConfig{Tools: []*genai.Tool{{FunctionDeclarations: tools[0].FunctionDeclarations, GoogleSearch: &genai.GoogleSearch{}}}})
	if got := sendTools(t, srv, gen, search); len(got.Tools) != 1 || got.Tools[0].GoogleSearch == nil {
		t.Errorf("Google Search sent as %+v", got.Tools)
	}
}

func declaration(r geminitest.Request, name string) *genai.FunctionDeclaration {
	for _, tool := range r.Tools {
		for _, d := range tool.FunctionDeclarations {
			if d.Name == name {
				return d
			}
		}
	}
	return nil
}

// send sends one request of contents through gen, streamed or not, and
// returns the body the server received.
func send(t *testing.T, srv *geminitest.Server, gen auth.ContentGenerator, stream bool, contents []*genai.Content, config *genai.GenerateContentConfig) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	before := len(srv.Requests())
	srv.Push(geminitest.TextTurn("ok"))
	if stream {
		for _, err := range gen.GenerateContentStream(ctx, "gemini-x", contents, config) {
			if err != nil {
				t.Fatalf("stream: %v", err)
			}
		}
	} else if _, err := gen.GenerateContent(ctx, "gemini-x", contents, config); err != nil {
		t.Fatalf("generate: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != before+1 {
		t.Fatalf("%d requests, want %d", len(reqs), before+1)
	}
	return reqs[before].Body
}

// genaiAndOurs are genai's own models service and the generator, both
// against srv.
func genaiAndOurs(t *testing.T, srv *geminitest.Server) (theirs, ours auth.ContentGenerator) {
	t.Helper()
	cfg := genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL}}
	client, err := genai.NewClient(context.Background(), &cfg)
	if err != nil {
		t.Fatal(err)
	}
	return client.Models, auth.NewGenerator(auth.Auth{Type: auth.GeminiAPIKey, Version: "1.2.3", Config: cfg})
}

// exchange is a turn of a conversation with what genai's encoding could
// change: function calls and responses holding maps, numbers and
// characters JSON escapes, a thought signature (bytes), inline data.
func exchange(i int) []*genai.Content {
	call := &genai.FunctionCall{ID: fmt.Sprint("call_", i), Name: "grep_search", Args: map[string]any{"pattern": "<a href=\"x\">&", "limit": 2e3, "n": i}}
	return []*genai.Content{
		{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "Searching ünïcode — " + fmt.Sprint(i)}, {FunctionCall: call, ThoughtSignature: []byte{0, 1, 254, byte(i)}}}},
		{Role: genai.RoleUser, Parts: []*genai.Part{
			{FunctionResponse: &genai.FunctionResponse{ID: call.ID, Name: call.Name, Response: map[string]any{"output": "a.go:1: x < y && z\n", "matches": []any{1.5, "two", nil, map[string]any{"k": true}}}}},
			{InlineData: &genai.Blob{MIMEType: "image/png", Data: []byte("\x89PNG")}},
		}},
	}
}

// A conversation is sent byte for byte as genai encodes it, request after
// request, streamed or not: its history growing, a content whose parts
// changed, another conversation between its requests, the system
// instruction changing, and no config at all.
func TestConversationSentAsGenaiEncodesIt(t *testing.T) {
	srv := geminitest.NewTestServer(t)
	theirs, ours := genaiAndOurs(t, srv)
	same := func(what string, stream bool, contents []*genai.Content, config *genai.GenerateContentConfig) {
		t.Helper()
		got := send(t, srv, ours, stream, contents, config)
		if want := send(t, srv, theirs, stream, contents, config); string(got) != string(want) {
			t.Errorf("%s: body\n%s\nwant genai's\n%s", what, got, want)
		}
	}
	config := &genai.GenerateContentConfig{
		SystemInstruction: genai.NewContentFromText("Be brief <always> & \"exact\".", genai.RoleUser),
		Tools:             []*genai.Tool{{FunctionDeclarations: declarationsOf("Reads a file.")}},
		Temperature:       genai.Ptr[float32](0.5),
	}
	history := []*genai.Content{genai.NewContentFromText("Find the TODOs.", genai.RoleUser)}
	other := []*genai.Content{genai.NewContentFromText("Something else.", genai.RoleUser)}
	for i := range 3 {
		same(fmt.Sprint("request ", i+1), i%2 == 0, history, config)
		same(fmt.Sprint("another conversation, request ", i+1), true, other, config)
		history = append(history, exchange(i)...)
		other = append(other, exchange(10+i)...)
	}
	history[1].Parts = append(history[1].Parts, &genai.Part{Text: "More."})
	same("a content whose parts changed", true, history, config)
	history = history[:3]
	same("a shorter history", true, history, config)
	same("the same request again", true, history, config)
	changed := *config
	changed.SystemInstruction = genai.NewContentFromText("Be thorough.", genai.RoleUser)
	same("another system instruction", true, history, &changed)
	multi := *config
	multi.SystemInstruction = &genai.Content{Parts: []*genai.Part{{Text: "One."}, {Text: "Two."}}}
	same("a system instruction of two parts", true, history, &multi)
	same("no config", false, history, nil)
	if config.HTTPOptions != nil || config.SystemInstruction.Parts[0].Text != "Be brief <always> & \"exact\"." {
		t.Errorf("the config was changed: %+v", config)
	}
}

// What was sent is sent as it was encoded then: a content of the history,
// once sent, is not encoded again (the agent never changes one; were it
// changed in place, its first encoding would still go).
func TestHistoryEncodedOnce(t *testing.T) {
	srv := geminitest.NewTestServer(t)
	_, ours := genaiAndOurs(t, srv)
	history := append([]*genai.Content{genai.NewContentFromText("Find the TODOs.", genai.RoleUser)}, exchange(1)...)
	config := &genai.GenerateContentConfig{Temperature: genai.Ptr[float32](0)}
	send(t, srv, ours, true, history, config)
	history[0].Parts[0].Text = "Changed in place."
	history = append(history, genai.NewContentFromText("And now?", genai.RoleUser))
	body := string(send(t, srv, ours, true, history, config))
	if !strings.Contains(body, "Find the TODOs.") || strings.Contains(body, "Changed in place.") {
		t.Errorf("the history was encoded again: %s", body)
	}
	if !strings.Contains(body, "And now?") {
		t.Errorf("the new content is missing: %s", body)
	}
}

// A conversation forgotten (its session left memory) is not kept: the
// cache holds nothing of it, so a history sent again is encoded anew.
func TestForgottenConversationIsNotKept(t *testing.T) {
	srv := geminitest.NewTestServer(t)
	_, ours := genaiAndOurs(t, srv)
	history := append([]*genai.Content{genai.NewContentFromText("Find the TODOs.", genai.RoleUser)}, exchange(1)...)
	config := &genai.GenerateContentConfig{Temperature: genai.Ptr[float32](0)}
	send(t, srv, ours, true, history, config)
	ours.(interface{ ForgetConversation(*genai.Content) }).ForgetConversation(history[0])
	history[0].Parts[0].Text = "Changed in place."
	body := string(send(t, srv, ours, true, history, config))
	if !strings.Contains(body, "Changed in place.") {
		t.Errorf("the forgotten history was still kept: %s", body)
	}
}

// A conversation holding long texts (which the generator encodes itself,
// not genai) is sent byte for byte as genai encodes it: texts with
// characters JSON escapes, two in one content, a thought, text that is
// not UTF-8 (left to genai), beside short ones.
func TestLongTextsSentAsGenaiEncodesThem(t *testing.T) {
	srv := geminitest.NewTestServer(t)
	theirs, ours := genaiAndOurs(t, srv)
	long := func(s string) string { return strings.Repeat(s, 70<<10/len(s)+1) }
	history := []*genai.Content{
		{Role: genai.RoleUser, Parts: []*genai.Part{
			{Text: "Read this:"},
			{Text: long("<a href=\"x\">&amp;</a>\ttab\nline\r\x00 ünïcode — \u2028\u2029 \\ ")},
			{Text: long("second ")},
		}},
		{Role: genai.RoleModel, Parts: []*genai.Part{{Text: long("thinking… "), Thought: true}, {Text: "Done."}}},
		{Role: genai.RoleUser, Parts: []*genai.Part{{Text: long("not UTF-8 \xff\xfe ")}}},
	}
	config := &genai.GenerateContentConfig{Temperature: genai.Ptr[float32](0.5)}
	for i := 1; i <= len(history); i++ {
		got := send(t, srv, ours, true, history[:i], config)
		if want := send(t, srv, theirs, true, history[:i], config); string(got) != string(want) {
			t.Errorf("%d contents: the body differs from genai's (%d bytes, want %d)", i, len(got), len(want))
		}
	}
	if !strings.HasPrefix(history[0].Parts[1].Text, "<a href") {
		t.Errorf("a content was changed: %.40q", history[0].Parts[1].Text)
	}
}
