package auth

import (
	"context"
	"encoding/json"
	"iter"
	"reflect"
	"slices"
	"sync"

	"google.golang.org/genai"
)

// declaredModels is the genai models service, sending the function
// declarations of each request as they were encoded the first time they
// were sent. genai encodes a request by marshalling it to JSON, reading
// that back into maps and marshalling those again: for the tool
// declarations every agent request carries (18 KB of its 20, the same
// each time), that was about half of the agent's CPU per request.
//
// A declaration, and a list of them, is taken as unchanging once sent, as
// the agent's are (its ToolSet hands out declarations nobody may change,
// and it offers each list to every request); a changed tool set brings
// new declarations and lists, encoded in their turn.
type declaredModels struct {
	*genai.Models
	encoded *declarationCache
}

func (m declaredModels) GenerateContentStream(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	return m.Models.GenerateContentStream(ctx, model, contents, m.encoded.apply(config))
}

func (m declaredModels) GenerateContent(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	return m.Models.GenerateContent(ctx, model, contents, m.encoded.apply(config))
}

// declarationCache holds each declaration sent as genai puts it in a
// request body, and the last lists of them sent.
type declarationCache struct {
	mu      sync.Mutex
	encoded map[*genai.FunctionDeclaration][]byte
	// lists are whole "tools" values, by their one tool's declarations
	// (the agent sends the same list while its tools stay the same).
	lists map[**genai.FunctionDeclaration]encodedList
}

// encodedList is a list of declarations and its "tools" value; holding
// the list keeps another from being allocated where it is.
type encodedList struct {
	decls []*genai.FunctionDeclaration
	tools []byte
}

// maxDeclarations and maxLists bound what is kept: a few sets of tools
// (plan mode's differ from the others', MCP servers come and go).
const (
	maxDeclarations = 256
	maxLists        = 16
)

// apply returns config with its tools already encoded, put in the
// request body's "tools" as they are (HTTPOptions.ExtrasRequestProvider:
// ExtraBody would be encoded with the config, the cost saved here); config
// itself when they are not function declarations alone, which genai
// converts, or when the config has a body provider of its own. config is
// not changed.
func (c *declarationCache) apply(config *genai.GenerateContentConfig) *genai.GenerateContentConfig {
	if config == nil || len(config.Tools) == 0 || config.HTTPOptions != nil && config.HTTPOptions.ExtrasRequestProvider != nil {
		return config
	}
	tools, err := c.encode(config.Tools)
	if err != nil || tools == nil {
		return config // genai reports what it cannot encode
	}
	out := *config
	out.Tools = nil
	var opts genai.HTTPOptions
	if config.HTTPOptions != nil {
		opts = *config.HTTPOptions
	}
	opts.ExtrasRequestProvider = func(body map[string]any) map[string]any {
		body["tools"] = json.RawMessage(tools)
		return body
	}
	out.HTTPOptions = &opts
	return &out
}

// encode is tools as genai encodes them in a request body, nil when one
// of them holds more than function declarations (or none).
func (c *declarationCache) encode(tools []*genai.Tool) ([]byte, error) {
	for _, t := range tools {
		if !onlyDeclarations(t) {
			return nil, nil
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(tools) == 1 {
		decls := tools[0].FunctionDeclarations
		if l, ok := c.lists[&decls[0]]; ok && len(l.decls) == len(decls) {
			return l.tools, nil
		}
	}
	if c.encoded == nil || len(c.encoded) > maxDeclarations {
		c.encoded = make(map[*genai.FunctionDeclaration][]byte)
	}
	var b []byte
	b = append(b, '[')
	for i, t := range tools {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"functionDeclarations":[`...)
		for j, d := range t.FunctionDeclarations {
			enc, err := c.declaration(d)
			if err != nil {
				return nil, err
			}
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, enc...)
		}
		b = append(b, "]}"...)
	}
	b = append(b, ']')
	if len(tools) == 1 {
		if c.lists == nil || len(c.lists) >= maxLists {
			c.lists = make(map[**genai.FunctionDeclaration]encodedList)
		}
		decls := tools[0].FunctionDeclarations
		c.lists[&decls[0]] = encodedList{decls: decls, tools: b}
	}
	return b, nil
}

// declaration is d as genai encodes it, encoded on first use; c.mu is
// held.
func (c *declarationCache) declaration(d *genai.FunctionDeclaration) ([]byte, error) {
	if enc, ok := c.encoded[d]; ok {
		return enc, nil
	}
	enc, err := asGenaiEncodes(d)
	if err != nil {
		return nil, err
	}
	c.encoded[d] = enc
	return enc, nil
}

// onlyDeclarations reports whether t is function declarations and
// nothing else, which genai passes into the body as they are.
func onlyDeclarations(t *genai.Tool) bool {
	if t == nil || len(t.FunctionDeclarations) == 0 || slices.Contains(t.FunctionDeclarations, nil) {
		return false
	}
	rest := *t
	rest.FunctionDeclarations = nil
	return reflect.ValueOf(rest).IsZero()
}

// asGenaiEncodes encodes d as genai does: marshalled, read back as maps
// and marshalled again (its keys sorted, its numbers float64s).
func asGenaiEncodes(d *genai.FunctionDeclaration) ([]byte, error) {
	first, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	var generic any
	if err := json.Unmarshal(first, &generic); err != nil {
		return nil, err
	}
	return json.Marshal(generic)
}
