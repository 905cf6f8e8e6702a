package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sync"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// Gemini CLI 0.61's recorded model answers (its FakeContentGenerator and
// RecordingContentGenerator, behind --fake-responses,
// --fake-responses-non-strict and --record-responses): a file of one JSON
// object a line, {"method": M, "response": R}, one line per model call
// in the order the calls ended. M is generateContentStream (R the
// stream's chunks, an array), generateContent (R one response),
// countTokens (R {totalTokens, cachedContentTokenCount}) or embedContent
// (R {embeddings, metadata}; gemini-ls never embeds). Each recorded
// response keeps only its candidates and usageMetadata, as 0.61 keeps
// them, so one file replays in either program.

// The methods of a recorded line.
const (
	methodStream      = "generateContentStream"
	methodGenerate    = "generateContent"
	methodCountTokens = "countTokens"
	methodEmbed       = "embedContent"
)

// maxResponsesFile bounds the file of recorded answers read: a session's
// answers, tool outputs excluded, are far below it.
const maxResponsesFile = 256 << 20

// recordedCall is one line of the file.
type recordedCall struct {
	Method   string          `json:"method"`
	Response json.RawMessage `json:"response"`
}

// ReplayMode is how a Replay takes its answers from the file.
type ReplayMode int

const (
	// Strict answers each call with the file's next line, which must be
	// for the call's method: 0.61's --fake-responses.
	Strict ReplayMode = iota
	// NonStrict answers each call with the first line left for its
	// method: 0.61's --fake-responses-non-strict.
	NonStrict
)

// NewReplay is a generator that answers every call from the recorded
// answers in path, never reaching a model: it needs no credentials. A
// line that is not a recorded call of a known method, with a response
// of that method's shape, is an error naming the line. A call with no
// answer left, or (strict) whose method is not the next line's, fails
// with 0.61's words.
func NewReplay(path string, mode ReplayMode) (ContentGenerator, error) {
	data, err := safefile.Read(path, maxResponsesFile)
	if err != nil {
		return nil, fmt.Errorf("reading the recorded model answers in %s: %w", path, err)
	}
	calls, err := parseRecorded(data)
	if err != nil {
		return nil, fmt.Errorf("reading the recorded model answers in %s: %w", path, err)
	}
	return &replay{calls: calls, mode: mode}, nil
}

// parseRecorded reads the file's lines, skipping blank ones as 0.61 does.
func parseRecorded(data []byte) ([]recordedCall, error) {
	var calls []recordedCall
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var c recordedCall
		if err := json.Unmarshal(line, &c); err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		if err := c.check(); err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		calls = append(calls, c)
	}
	return calls, nil
}

// check says whether c's response has its method's shape.
func (c recordedCall) check() error {
	var err error
	switch c.Method {
	case methodStream:
		_, err = c.stream()
	case methodGenerate:
		_, err = c.generated()
	case methodCountTokens:
		_, err = c.counted()
	case methodEmbed:
		err = json.Unmarshal(c.Response, new(genai.EmbedContentResponse))
	default:
		return fmt.Errorf("method %q is none of %s, %s, %s and %s", c.Method, methodStream, methodGenerate, methodCountTokens, methodEmbed)
	}
	if err != nil {
		return fmt.Errorf("the %s response: %w", c.Method, err)
	}
	return nil
}

// Each decode makes the response anew, so that no caller shares one.

func (c recordedCall) stream() ([]*genai.GenerateContentResponse, error) {
	var chunks []*genai.GenerateContentResponse
	if err := json.Unmarshal(c.Response, &chunks); err != nil {
		return nil, err
	}
	if slices.Contains(chunks, nil) {
		return nil, errors.New("a chunk is null")
	}
	return chunks, nil
}

func (c recordedCall) generated() (*genai.GenerateContentResponse, error) {
	var resp *genai.GenerateContentResponse
	if err := json.Unmarshal(c.Response, &resp); err != nil {
		return nil, err
	}
	if resp == nil {
		return nil, errors.New("it is null")
	}
	return resp, nil
}

func (c recordedCall) counted() (*genai.CountTokensResponse, error) {
	var resp *genai.CountTokensResponse
	if err := json.Unmarshal(c.Response, &resp); err != nil {
		return nil, err
	}
	if resp == nil {
		return nil, errors.New("it is null")
	}
	return resp, nil
}

// replay is NewReplay's generator. Safe for concurrent use: calls take
// their answers one at a time, in the order they ask.
type replay struct {
	mode ReplayMode
	mu   sync.Mutex
	// calls are the answers left (non-strict), or all of them (strict,
	// next being the one to give).
	calls []recordedCall
	next  int
}

// take is the answer for a call of method, request being what the call
// sends (for the error that says none is left), as 0.61's getNextResponse.
func (r *replay) take(method string, request any) (recordedCall, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mode == NonStrict {
		i := slices.IndexFunc(r.calls, func(c recordedCall) bool { return c.Method == method })
		if i < 0 {
			return recordedCall{}, noMoreResponses(method, request)
		}
		c := r.calls[i]
		r.calls = slices.Delete(r.calls, i, i+1)
		return c, nil
	}
	if r.next >= len(r.calls) {
		return recordedCall{}, noMoreResponses(method, request)
	}
	c := r.calls[r.next]
	r.next++
	if c.Method != method {
		return recordedCall{}, fmt.Errorf("Unexpected response type, next response was for %s but expected %s", c.Method, method)
	}
	return c, nil
}

// noMoreResponses is 0.61's error for a call the file has no answer for,
// with the request as it would have gone.
func noMoreResponses(method string, request any) error {
	body, err := json.Marshal(request)
	if err != nil {
		body = []byte(fmt.Sprintf("(not encodable: %v)", err))
	}
	return fmt.Errorf("No more mock responses for %s, got request:\n%s", method, body)
}

// generateRequest is a generate call's request as 0.61 names its parts.
type generateRequest struct {
	Model    string                       `json:"model"`
	Contents []*genai.Content             `json:"contents"`
	Config   *genai.GenerateContentConfig `json:"config,omitempty"`
}

// countRequest is a countTokens call's request as 0.61 names its parts.
type countRequest struct {
	Model    string           `json:"model"`
	Contents []*genai.Content `json:"contents"`
}

func (r *replay) GenerateContentStream(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		c, err := r.take(methodStream, generateRequest{Model: model, Contents: contents, Config: config})
		if err != nil {
			yield(nil, err)
			return
		}
		chunks, err := c.stream()
		if err != nil {
			yield(nil, err)
			return
		}
		for _, chunk := range chunks {
			if err := ctx.Err(); err != nil {
				yield(nil, err)
				return
			}
			if !yield(chunk, nil) {
				return
			}
		}
	}
}

func (r *replay) GenerateContent(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c, err := r.take(methodGenerate, generateRequest{Model: model, Contents: contents, Config: config})
	if err != nil {
		return nil, err
	}
	return c.generated()
}

func (r *replay) CountTokens(ctx context.Context, model string, contents []*genai.Content, _ *genai.CountTokensConfig) (*genai.CountTokensResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c, err := r.take(methodCountTokens, countRequest{Model: model, Contents: contents})
	if err != nil {
		return nil, err
	}
	return c.counted()
}

// NewRecorder is gen with each answer it gives appended to path as a
// line of 0.61's recorded answers (created, as a user's file, if need
// be): a stream's once it ends, its chunks as they came, whether the
// caller read them all or stopped; a failed call is not recorded, as
// 0.61 records none. A line that could not be written is told to warn
// (nil: nobody) and the answer still goes to the caller.
func NewRecorder(gen ContentGenerator, path string, warn func(error)) ContentGenerator {
	return &recorder{gen: gen, path: path, warn: warn}
}

// recorder is NewRecorder's generator.
type recorder struct {
	gen  ContentGenerator
	path string
	warn func(error)
	// mu keeps the lines whole when calls end at once.
	mu sync.Mutex
}

// recordedResponse is what 0.61 keeps of a generate response.
type recordedResponse struct {
	Candidates    []*genai.Candidate                          `json:"candidates,omitempty"`
	UsageMetadata *genai.GenerateContentResponseUsageMetadata `json:"usageMetadata,omitempty"`
}

// recordedCount is what 0.61 keeps of a countTokens response.
type recordedCount struct {
	TotalTokens             int32 `json:"totalTokens"`
	CachedContentTokenCount int32 `json:"cachedContentTokenCount,omitempty"`
}

func kept(resp *genai.GenerateContentResponse) recordedResponse {
	return recordedResponse{Candidates: resp.Candidates, UsageMetadata: resp.UsageMetadata}
}

// record appends one line: method and response.
func (r *recorder) record(method string, response any) {
	line, err := json.Marshal(struct {
		Method   string `json:"method"`
		Response any    `json:"response"`
	}{method, response})
	if err == nil {
		err = r.append(append(line, '\n'))
	}
	if err != nil && r.warn != nil {
		r.warn(fmt.Errorf("recording the model's %s answer in %s: %w", method, r.path, err))
	}
}

func (r *recorder) append(line []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, err := safefile.Append(r.path)
	if err != nil {
		return err
	}
	_, err = f.Write(line)
	return errors.Join(err, f.Close())
}

func (r *recorder) GenerateContentStream(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		chunks := []recordedResponse{}
		for resp, err := range r.gen.GenerateContentStream(ctx, model, contents, config) {
			if err != nil {
				yield(nil, err)
				return
			}
			chunks = append(chunks, kept(resp))
			if !yield(resp, nil) {
				break
			}
		}
		r.record(methodStream, chunks)
	}
}

func (r *recorder) GenerateContent(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	resp, err := r.gen.GenerateContent(ctx, model, contents, config)
	if err != nil {
		return nil, err
	}
	r.record(methodGenerate, kept(resp))
	return resp, nil
}

func (r *recorder) CountTokens(ctx context.Context, model string, contents []*genai.Content, config *genai.CountTokensConfig) (*genai.CountTokensResponse, error) {
	resp, err := r.gen.CountTokens(ctx, model, contents, config)
	if err != nil {
		return nil, err
	}
	r.record(methodCountTokens, recordedCount{TotalTokens: resp.TotalTokens, CachedContentTokenCount: resp.CachedContentTokenCount})
	return resp, nil
}

// ForgetConversation passes the agent's word on to the generator that
// keeps what it sent (generator.ForgetConversation).
func (r *recorder) ForgetConversation(first *genai.Content) {
	if g, ok := r.gen.(interface{ ForgetConversation(*genai.Content) }); ok {
		g.ForgetConversation(first)
	}
}

// unwrap is the generator a recorder records, gen itself for any other.
func unwrap(gen ContentGenerator) ContentGenerator {
	if r, ok := gen.(*recorder); ok {
		return r.gen
	}
	return gen
}
