package auth_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/auth"
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
