package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"reflect"
	"slices"
	"sync"
	"unicode/utf8"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/jsonstring"
)

// encodedModels is the genai models service, sending what every request
// of a conversation repeats as it was encoded the first time it was sent:
// the function declarations, the system instruction and the history.
// genai encodes a request by marshalling it to JSON, reading that back
// into maps, converting those for the backend and marshalling them again;
// a request repeats the declarations (18 KB), the system instruction (7 KB)
// and the whole history before it, so that cost grew with each turn and
// was most of the agent's CPU per request.
//
// What was sent is taken as unchanging, as the agent's is: a declaration,
// a list of them (its ToolSet hands out declarations nobody may change,
// and it offers each list to every request), a system instruction (by its
// text) and a content of the history (by its pointer, its role and its
// parts, which the agent never changes once recorded). Anything else is
// encoded by genai in its turn, and what genai encodes for the first time
// is kept as genai encoded it, for the backend it converted it for.
type encodedModels struct {
	*genai.Models
	encoded *encodingCache
}

func (m encodedModels) GenerateContentStream(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	ctx, contents, config = m.encoded.apply(ctx, contents, config)
	return m.Models.GenerateContentStream(ctx, model, contents, config)
}

func (m encodedModels) GenerateContent(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	ctx, contents, config = m.encoded.apply(ctx, contents, config)
	return m.Models.GenerateContent(ctx, model, contents, config)
}

// encodingCache holds what was sent as genai put it in a request body.
type encodingCache struct {
	mu sync.Mutex
	// spliceTag begins the placeholders of the parts spliced into a body.
	spliceTag string
	encoded   map[*genai.FunctionDeclaration][]byte
	// lists are whole "tools" values, by their one tool's declarations
	// (the agent sends the same list while its tools stay the same).
	lists map[**genai.FunctionDeclaration]encodedList
	// systems are "systemInstruction" values by their role and text.
	systems map[systemKey][]byte
	// histories are the contents each conversation sent last, by the
	// first of them.
	histories map[*genai.Content][]encodedContent
}

// encodedList is a list of declarations and its "tools" value; holding
// the list keeps another from being allocated where it is.
type encodedList struct {
	decls []*genai.FunctionDeclaration
	tools []byte
}

// encodedContent is a content as it was when sent, and as genai encoded it
// then.
type encodedContent struct {
	content *genai.Content
	role    string
	parts   []*genai.Part
	json    []byte
}

// unchanged reports whether c is e's content as it was encoded.
func (e encodedContent) unchanged(c *genai.Content) bool {
	return e.content == c && e.role == c.Role && slices.Equal(e.parts, c.Parts)
}

// maxDeclarations, maxLists, maxSystems and maxHistories bound what is
// kept: a few sets of tools (plan mode's differ from the others', MCP
// servers come and go), system instructions and conversations (a server
// holds several sessions, and a session its subagents' and utility
// calls').
const (
	maxDeclarations = 256
	maxLists        = 16
	maxSystems      = 8
	maxHistories    = 16
)

// request is what one request sends already encoded, and what genai is
// left to encode.
type request struct {
	c *encodingCache
	// tools is the "tools" value, nil for genai's own.
	tools []byte
	// system is the "systemInstruction" value, nil when genai encodes it;
	// keepSystem says genai's encoding of it is then to be kept, under
	// systemKey.
	system     []byte
	systemKey  systemKey
	keepSystem bool
	// history are the contents in order, json nil for those genai encodes
	// (fresh, in order); first is the conversation's first content.
	history []encodedContent
	fresh   []*genai.Content
	first   *genai.Content
	// texts are the long texts of the fresh contents, by the stand-in
	// genai encodes in each one's place (standIns).
	texts map[string]string
	// body is the "contents" value once made, in pieces.
	body [][]byte
	// splice carries what was encoded before to the transport.
	splice splice
}

// apply returns the contents and config genai is to encode, the rest put
// in the request body as encoded before (HTTPOptions.ExtrasRequestProvider:
// ExtraBody would be encoded with the config, the cost saved here), and
// the context that carries those parts to the transport (splice.go).
// contents and config are returned as they are when there is no config
// (one made to carry the body provider would add an empty
// "generationConfig") or it has a body provider of its own; neither is
// changed.
func (c *encodingCache) apply(ctx context.Context, contents []*genai.Content, config *genai.GenerateContentConfig) (context.Context, []*genai.Content, *genai.GenerateContentConfig) {
	if config == nil || config.HTTPOptions != nil && config.HTTPOptions.ExtrasRequestProvider != nil {
		return ctx, contents, config
	}
	r := c.request(contents, config)
	out := *config
	if r.tools != nil {
		out.Tools = nil
	}
	if r.system != nil {
		out.SystemInstruction = nil
	}
	var opts genai.HTTPOptions
	if config.HTTPOptions != nil {
		opts = *config.HTTPOptions
	}
	opts.ExtrasRequestProvider = r.fill
	out.HTTPOptions = &opts
	return withSplice(ctx, &r.splice), r.fresh, &out
}

// request sorts what the request sends into what was encoded before and
// what genai is to encode.
func (c *encodingCache) request(contents []*genai.Content, config *genai.GenerateContentConfig) *request {
	r := &request{c: c}
	c.mu.Lock()
	if c.spliceTag == "" {
		c.spliceTag = newSpliceTag()
	}
	r.splice.tag = c.spliceTag
	c.mu.Unlock()
	r.tools, _ = c.encodeTools(config.Tools) // on an error, genai reports it
	r.system, r.systemKey, r.keepSystem = c.encodedSystem(config.SystemInstruction)
	if len(contents) == 0 || slices.Contains(contents, nil) {
		r.fresh = contents // genai says what is wrong
		return r
	}
	r.first = contents[0]
	c.mu.Lock()
	sent := c.histories[r.first]
	c.mu.Unlock()
	r.history = make([]encodedContent, len(contents))
	for i, content := range contents {
		if i < len(sent) && sent[i].unchanged(content) {
			r.history[i] = sent[i]
			continue
		}
		r.history[i] = encodedContent{content: content, role: content.Role, parts: slices.Clone(content.Parts)}
		r.fresh = append(r.fresh, r.standIns(i, content))
	}
	return r
}

// longText is the size from which a text part is not given to genai but
// encoded here (standIns): genai's encoding copies a text six times over
// (marshalled, read back, marshalled again, each buffer grown by
// doubling), and a prompt may be 16 MiB.
const longText = 64 << 10

// standIns is content i for genai to encode: content itself, or, when it
// has long texts of valid UTF-8, a copy whose long texts are stand-ins,
// short strings that contents replaces with the texts as genai would have
// encoded them (encoding/json's escaping). Text that is not UTF-8 is left
// to genai, which changes it as it decodes its own encoding.
func (r *request) standIns(i int, content *genai.Content) *genai.Content {
	var out *genai.Content
	for j, p := range content.Parts {
		if p == nil || len(p.Text) < longText || !utf8.ValidString(p.Text) {
			continue
		}
		if out == nil {
			copied := *content
			copied.Parts = slices.Clone(content.Parts)
			out = &copied
		}
		standIn := *p
		standIn.Text = fmt.Sprintf("%s%d-%d", r.splice.textStandIn()[1:], i, j) // unquoted
		out.Parts[j] = &standIn
		if r.texts == nil {
			r.texts = make(map[string]string)
		}
		r.texts[`"`+standIn.Text+`"`] = p.Text
	}
	if out == nil {
		return content
	}
	return out
}

// systemKey is a system instruction of one text, by what it says. (A key
// made by joining them would copy 7 KB at every request.)
type systemKey struct {
	role, text string
}

// encodedSystem is the "systemInstruction" value of a system instruction
// that is one text, as sent before; or nil, with its key and whether
// genai's encoding of it is to be kept.
func (c *encodingCache) encodedSystem(system *genai.Content) ([]byte, systemKey, bool) {
	if system == nil || len(system.Parts) != 1 || !onlyText(system.Parts[0]) {
		return nil, systemKey{}, false
	}
	key := systemKey{system.Role, system.Parts[0].Text}
	c.mu.Lock()
	defer c.mu.Unlock()
	if enc, ok := c.systems[key]; ok {
		return enc, key, false
	}
	return nil, key, true
}

// onlyText reports whether p is plain text and nothing else.
func onlyText(p *genai.Part) bool {
	if p == nil {
		return false
	}
	rest := *p
	rest.Text = ""
	return reflect.ValueOf(rest).IsZero()
}

// fill is the request's body provider: it puts in what was encoded before
// and keeps what genai encoded this time. genai calls it once, with the
// body it made (contents, config) converted for its backend.
func (r *request) fill(body map[string]any) map[string]any {
	if r.tools != nil {
		body["tools"] = r.splice.hold(slotTools, r.tools)
	}
	if r.system != nil {
		body["systemInstruction"] = r.splice.hold(slotSystem, r.system)
	} else if r.keepSystem {
		r.c.keepSystem(r.systemKey, body["systemInstruction"])
	}
	if r.history != nil {
		if r.body == nil {
			r.body = r.contents(body["contents"])
		}
		if r.body != nil {
			body["contents"] = r.splice.holdPieces(slotContents, r.body)
		}
	}
	return body
}

// contents is the request's "contents" value, in pieces sent in turn
// (the contents are not copied into one): the contents encoded before,
// and those genai encoded now (converted, in order, their long texts put
// back in), which are kept. nil when genai's are not what was asked for,
// left then as genai made them.
func (r *request) contents(converted any) [][]byte {
	var list []map[string]any
	switch v := converted.(type) {
	case []map[string]any:
		list = v
	case nil: // every content encoded before
	default:
		return nil
	}
	if len(list) != len(r.fresh) {
		return nil
	}
	next := 0
	for i := range r.history {
		if r.history[i].json != nil {
			continue
		}
		enc, err := json.Marshal(list[next])
		if err != nil {
			return nil
		}
		if enc, err = jsonstring.PutBack(enc, r.texts); err != nil {
			return nil
		}
		r.history[i].json = enc
		next++
	}
	pieces := make([][]byte, 0, 2*len(r.history)+1)
	for i, h := range r.history {
		sep := []byte{','}
		if i == 0 {
			sep = []byte{'['}
		}
		pieces = append(pieces, sep, h.json)
	}
	if len(pieces) == 0 {
		pieces = append(pieces, []byte{'['})
	}
	pieces = append(pieces, []byte{']'})
	r.c.keepHistory(r.first, r.history)
	return pieces
}

// keepSystem keeps the encoding of the system instruction text genai
// converted.
func (c *encodingCache) keepSystem(key systemKey, converted any) {
	if converted == nil {
		return
	}
	enc, err := json.Marshal(converted)
	if err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.systems == nil || len(c.systems) >= maxSystems {
		c.systems = make(map[systemKey][]byte)
	}
	c.systems[key] = enc
}

// keepHistory keeps what a conversation sent, for its next request.
func (c *encodingCache) keepHistory(first *genai.Content, history []encodedContent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.histories == nil || len(c.histories) >= maxHistories {
		c.histories = make(map[*genai.Content][]encodedContent)
	}
	c.histories[first] = history
}

// forget drops the history of the conversation that begins with first.
func (c *encodingCache) forget(first *genai.Content) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.histories, first)
}

// encodeTools is tools as genai encodes them in a request body, nil when
// one of them holds more than function declarations (or none).
func (c *encodingCache) encodeTools(tools []*genai.Tool) ([]byte, error) {
	if len(tools) == 0 {
		return nil, nil
	}
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
func (c *encodingCache) declaration(d *genai.FunctionDeclaration) ([]byte, error) {
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
