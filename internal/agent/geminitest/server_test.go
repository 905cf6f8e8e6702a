package geminitest_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

func newClient(t *testing.T, srv *geminitest.Server) *genai.Client {
	t.Helper()
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:      "test-key",
		Backend:     genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestStreamRoundTrip(t *testing.T) {
	sig := []byte("sig-1")
	srv := geminitest.NewTestServer(t, geminitest.Turn{
		Chunks: []geminitest.Chunk{
			{Text: "**Plan** read it", Thought: true},
			{Text: "Hello, "},
			{Text: "world", ThoughtSignature: sig},
			{Call: &genai.FunctionCall{ID: "c1", Name: "read_file", Args: map[string]any{"path": "a.go"}}},
		},
		Usage: &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 7, CandidatesTokenCount: 3, ThoughtsTokenCount: 2, TotalTokenCount: 12},
	})
	c := newClient(t, srv)
	ctx := context.Background()
	cfg := &genai.GenerateContentConfig{
		SystemInstruction: genai.NewContentFromText("be brief", genai.RoleUser),
		Tools:             []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "read_file", Description: "reads"}}}},
		ThinkingConfig:    &genai.ThinkingConfig{IncludeThoughts: true},
	}
	var parts []*genai.Part
	var last *genai.GenerateContentResponse
	for resp, err := range c.Models.GenerateContentStream(ctx, "gemini-test", genai.Text("hi"), cfg) {
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, resp.Candidates[0].Content.Parts...)
		last = resp
	}
	if len(parts) != 4 {
		t.Fatalf("got %d parts, want 4", len(parts))
	}
	if !parts[0].Thought || parts[0].Text != "**Plan** read it" {
		t.Errorf("thought part = %+v", parts[0])
	}
	if parts[1].Text != "Hello, " || parts[2].Text != "world" || !bytes.Equal(parts[2].ThoughtSignature, sig) {
		t.Errorf("text parts = %+v %+v", parts[1], parts[2])
	}
	fc := parts[3].FunctionCall
	if fc == nil || fc.ID != "c1" || fc.Name != "read_file" || fc.Args["path"] != "a.go" {
		t.Errorf("call = %+v", fc)
	}
	if got := last.Candidates[0].FinishReason; got != genai.FinishReasonStop {
		t.Errorf("finish reason = %q", got)
	}
	if u := last.UsageMetadata; u == nil || u.PromptTokenCount != 7 || u.TotalTokenCount != 12 || u.ThoughtsTokenCount != 2 {
		t.Errorf("usage = %+v", last.UsageMetadata)
	}

	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("got %d requests", len(reqs))
	}
	r := reqs[0]
	if r.Method != "streamGenerateContent" || r.Model != "gemini-test" || r.APIKey != "test-key" {
		t.Errorf("request = %s %s key %q", r.Method, r.Model, r.APIKey)
	}
	if len(r.Contents) != 1 || r.Contents[0].Parts[0].Text != "hi" || r.Contents[0].Role != "user" {
		t.Errorf("contents = %s", r.Body)
	}
	if r.SystemInstruction == nil || r.SystemInstruction.Parts[0].Text != "be brief" {
		t.Errorf("system instruction = %s", r.Body)
	}
	if len(r.Tools) != 1 || r.Tools[0].FunctionDeclarations[0].Name != "read_file" {
		t.Errorf("tools = %s", r.Body)
	}
	if r.GenerationConfig == nil || r.GenerationConfig.ThinkingConfig == nil || !r.GenerationConfig.ThinkingConfig.IncludeThoughts {
		t.Errorf("generation config = %s", r.Body)
	}
}

func TestGenerateContentMergesChunks(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("one ", "two"))
	c := newClient(t, srv)
	resp, err := c.Models.GenerateContent(context.Background(), "m", genai.Text("hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Text(); got != "one two" || len(resp.Candidates[0].Content.Parts) != 1 {
		t.Errorf("text = %q in %d parts", got, len(resp.Candidates[0].Content.Parts))
	}
	if u := resp.UsageMetadata; u == nil || u.PromptTokenCount == 0 || u.CandidatesTokenCount == 0 {
		t.Errorf("rough usage missing: %+v", u)
	}
	if m := srv.Requests()[0].Method; m != "generateContent" {
		t.Errorf("method = %q", m)
	}
}

func TestEmptyTurnEndsStream(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.Turn{})
	c := newClient(t, srv)
	n := 0
	for resp, err := range c.Models.GenerateContentStream(context.Background(), "m", genai.Text("hi"), nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if resp.Candidates[0].FinishReason != genai.FinishReasonStop {
			t.Errorf("finish reason = %q", resp.Candidates[0].FinishReason)
		}
	}
	// One chunk, and no reconnect by the client's stream continuation.
	if n != 1 || len(srv.Requests()) != 1 {
		t.Errorf("got %d chunks over %d requests, want 1 over 1", n, len(srv.Requests()))
	}
}

func TestCountTokens(t *testing.T) {
	srv := geminitest.NewTestServer(t)
	c := newClient(t, srv)
	resp, err := c.Models.CountTokens(context.Background(), "m", genai.Text(strings.Repeat("abcd", 10)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.TotalTokens != 10 {
		t.Errorf("total tokens = %d, want 10", resp.TotalTokens)
	}
	if r := srv.Requests()[0]; r.Method != "countTokens" || len(r.Contents) != 1 {
		t.Errorf("request = %+v", r)
	}
}

func TestHTTPErrorWithRetryInfo(t *testing.T) {
	srv := geminitest.NewServer(geminitest.Turn{Err: &geminitest.APIError{Code: 429, Message: "quota", RetryDelay: 1500 * time.Millisecond, RetryAfter: time.Second}})
	defer srv.Close()
	c := newClient(t, srv)
	var err error
	for _, e := range c.Models.GenerateContentStream(context.Background(), "m", genai.Text("hi"), nil) {
		err = e
	}
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v, want a genai.APIError", err)
	}
	if apiErr.Code != 429 || apiErr.Status != "RESOURCE_EXHAUSTED" || apiErr.Message != "quota" {
		t.Errorf("api error = %+v", apiErr)
	}
	if len(apiErr.Details) != 1 || apiErr.Details[0]["@type"] != "type.googleapis.com/google.rpc.RetryInfo" || apiErr.Details[0]["retryDelay"] != "1.5s" {
		t.Errorf("details = %v", apiErr.Details)
	}
	// Retry-After is a header genai does not surface; check the wire.
	resp, err := http.Post(srv.URL+"/v1beta/models/m:generateContent", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// That request was unscripted: it must be answered 500 and reported.
	if resp.StatusCode != 500 {
		t.Errorf("unscripted request status = %d", resp.StatusCode)
	}
	if err := srv.Err(); err == nil || !strings.Contains(err.Error(), "unscripted generateContent request") {
		t.Errorf("Err() = %v", err)
	}
	srv2 := geminitest.NewServer(geminitest.Turn{Err: &geminitest.APIError{Code: 503, RetryAfter: 1500 * time.Millisecond}})
	defer srv2.Close()
	resp, err = http.Post(srv2.URL+"/v1beta/models/m:generateContent", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "2" {
		t.Errorf("status %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

func TestErrorAfterChunksInStream(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.Turn{
		Chunks: []geminitest.Chunk{{Text: "partial"}},
		Err:    &geminitest.APIError{Code: 500, Message: "boom"},
	})
	c := newClient(t, srv)
	var texts []string
	var err error
	for resp, e := range c.Models.GenerateContentStream(context.Background(), "m", genai.Text("hi"), nil) {
		if e != nil {
			err = e
			break
		}
		texts = append(texts, resp.Text())
	}
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) || apiErr.Code != 500 || apiErr.Message != "boom" {
		t.Fatalf("err = %v", err)
	}
	if len(texts) != 1 || texts[0] != "partial" {
		t.Errorf("texts before the error = %q", texts)
	}
}

func TestUnscriptedStreamFailsVisibly(t *testing.T) {
	srv := geminitest.NewServer()
	defer srv.Close()
	c := newClient(t, srv)
	var err error
	for _, e := range c.Models.GenerateContentStream(context.Background(), "m", genai.Text("hi"), nil) {
		err = e
	}
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) || apiErr.Code != 500 || !strings.Contains(apiErr.Message, "unscripted streamGenerateContent request") {
		t.Fatalf("err = %v", err)
	}
	if srv.Err() == nil {
		t.Error("Err() = nil after an unscripted request")
	}
}

func TestHangUntilCancelled(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.Turn{Chunks: []geminitest.Chunk{{Text: "thinking..."}}, Hang: true})
	c := newClient(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := ""
	var err error
	for resp, e := range c.Models.GenerateContentStream(ctx, "m", genai.Text("hi"), nil) {
		if e != nil {
			err = e
			break
		}
		got += resp.Text()
		cancel() // the stream stays open until the client goes away
	}
	if got != "thinking..." || !errors.Is(err, context.Canceled) {
		t.Errorf("got %q, err %v; want the chunk then context.Canceled", got, err)
	}
}

func TestPushAndWaitRequests(t *testing.T) {
	srv := geminitest.NewTestServer(t)
	c := newClient(t, srv)
	srv.Push(geminitest.TextTurn("late"))
	if srv.Remaining() != 1 {
		t.Fatalf("remaining = %d", srv.Remaining())
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.Models.GenerateContent(context.Background(), "m", genai.Text("hi"), nil)
		done <- err
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	reqs, err := srv.WaitRequests(ctx, 1)
	if err != nil || len(reqs) != 1 {
		t.Fatalf("WaitRequests = %d, %v", len(reqs), err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	short, cancel2 := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel2()
	if _, err := srv.WaitRequests(short, 2); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("WaitRequests(2) err = %v, want deadline exceeded", err)
	}
}

func TestDelays(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.Turn{Delay: time.Hour})
	c := newClient(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.Models.GenerateContent(ctx, "m", genai.Text("hi"), nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the delayed turn to outlast the deadline", err)
	}
}

// groundedTurn answers as a googleSearch grounded answer does.
func groundedTurn() geminitest.Turn {
	t := geminitest.TextTurn("Go is fast. ", "It compiles.")
	t.Grounding = &genai.GroundingMetadata{
		WebSearchQueries: []string{"is go fast"},
		GroundingChunks:  []*genai.GroundingChunk{{Web: &genai.GroundingChunkWeb{URI: "https://go.dev", Title: "go.dev"}}},
		GroundingSupports: []*genai.GroundingSupport{{
			Segment:               &genai.Segment{EndIndex: 11, Text: "Go is fast."},
			GroundingChunkIndices: []int32{0},
		}},
	}
	return t
}

func TestGroundingMetadataWireFormat(t *testing.T) {
	srv := geminitest.NewTestServer(t, groundedTurn())
	resp, err := http.Post(srv.URL+"/v1beta/models/m:generateContent", "application/json", strings.NewReader(`{"contents":[{"role":"user","parts":[{"text":"q"}]}],"tools":[{"googleSearch":{}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Candidates []struct {
			GroundingMetadata map[string]any `json:"groundingMetadata"`
		} `json:"candidates"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(body.Candidates[0].GroundingMetadata)
	// Gemini's spelling: camelCase, a zero startIndex omitted as proto3 does.
	want := `{"groundingChunks":[{"web":{"title":"go.dev","uri":"https://go.dev"}}],"groundingSupports":[{"groundingChunkIndices":[0],"segment":{"endIndex":11,"text":"Go is fast."}}],"webSearchQueries":["is go fast"]}`
	if string(got) != want {
		t.Errorf("groundingMetadata =\n%s\nwant\n%s", got, want)
	}
	if tools := srv.Requests()[0].Tools; len(tools) != 1 || tools[0].GoogleSearch == nil {
		t.Errorf("recorded tools = %+v, want googleSearch", tools)
	}
}

func TestGroundingMetadataOnLastStreamedChunk(t *testing.T) {
	srv := geminitest.NewTestServer(t, groundedTurn())
	c := newClient(t, srv)
	var grounding []*genai.GroundingMetadata
	for resp, err := range c.Models.GenerateContentStream(context.Background(), "m", genai.Text("hi"), nil) {
		if err != nil {
			t.Fatal(err)
		}
		grounding = append(grounding, resp.Candidates[0].GroundingMetadata)
	}
	if len(grounding) != 2 || grounding[0] != nil || grounding[1] == nil || grounding[1].GroundingChunks[0].Web.URI != "https://go.dev" {
		t.Errorf("grounding per chunk = %+v, want it on the last chunk only", grounding)
	}
}

func TestCutStream(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.Turn{Chunks: []geminitest.Chunk{{Text: "half an"}}, Cut: true},
		geminitest.Turn{Cut: true},
	)
	c := newClient(t, srv)
	for i, want := range []string{"half an", ""} {
		got := ""
		var err error
		for resp, e := range c.Models.GenerateContentStream(context.Background(), "m", genai.Text("hi"), nil) {
			if e != nil {
				err = e
				break
			}
			got += resp.Text()
			if fr := resp.Candidates[0].FinishReason; fr != "" {
				t.Errorf("stream %d: finish reason %q on a cut stream", i+1, fr)
			}
		}
		if got != want || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("stream %d: got %q, err %v; want %q then an unexpected EOF", i+1, got, err, want)
		}
	}
}

func TestNoFinishReason(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.Turn{Chunks: []geminitest.Chunk{{Text: "a"}, {Text: "b"}}, NoFinishReason: true})
	c := newClient(t, srv)
	got := ""
	for resp, err := range c.Models.GenerateContentStream(context.Background(), "m", genai.Text("hi"), nil) {
		if err != nil {
			t.Fatal(err)
		}
		got += resp.Text()
		if fr := resp.Candidates[0].FinishReason; fr != "" || resp.UsageMetadata != nil {
			t.Errorf("finish reason %q, usage %+v: want neither", fr, resp.UsageMetadata)
		}
	}
	if got != "ab" {
		t.Errorf("text = %q", got)
	}
}

func TestErrorDetails(t *testing.T) {
	quota := map[string]any{
		"@type":      "type.googleapis.com/google.rpc.QuotaFailure",
		"violations": []any{map[string]any{"quotaId": "GenerateRequestsPerDayPerProjectPerModel"}},
	}
	srv := geminitest.NewTestServer(t, geminitest.Turn{Err: &geminitest.APIError{Code: 429, Message: "daily", RetryDelay: time.Second, Details: []map[string]any{quota}}})
	c := newClient(t, srv)
	var err error
	for _, e := range c.Models.GenerateContentStream(context.Background(), "m", genai.Text("hi"), nil) {
		err = e
	}
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) || len(apiErr.Details) != 2 {
		t.Fatalf("err = %v, want a genai.APIError with 2 details", err)
	}
	if apiErr.Details[0]["@type"] != "type.googleapis.com/google.rpc.RetryInfo" || apiErr.Details[1]["@type"] != quota["@type"] {
		t.Errorf("details = %v", apiErr.Details)
	}
}

// A turn made From the request answers with what the request said.
func TestTurnFromRequest(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.Turn{From: func(req geminitest.Request) geminitest.Turn {
		return geminitest.TextTurn("you said " + req.Contents[len(req.Contents)-1].Parts[0].Text)
	}})
	resp, err := newClient(t, srv).Models.GenerateContent(context.Background(), "gemini-2.5-pro", genai.Text("hello"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Text(); got != "you said hello" {
		t.Errorf("answer %q", got)
	}
}

// Gemini CLI 0.61 signs a call that came without a thought signature with
// "skip_thought_signature_validator", URL-safe base64 the API accepts as
// proto3 JSON bytes; encoding/json alone would refuse it.
func TestURLSafeThoughtSignature(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("ok"))
	body := `{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":{}},"thoughtSignature":"skip_thought_signature_validator"}]}]}`
	resp, err := http.Post(srv.URL+"/v1beta/models/m:generateContent", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Problem != "" {
		t.Fatalf("requests %+v", reqs)
	}
	want, _ := base64.RawURLEncoding.DecodeString("skip_thought_signature_validator")
	if got := reqs[0].Contents[0].Parts[0].ThoughtSignature; !bytes.Equal(got, want) {
		t.Errorf("signature %q, want %q", got, want)
	}
}

func TestRulesAnswerWithoutTakingTurns(t *testing.T) {
	sc, err := geminitest.ReadScript(strings.NewReader(`{
		"turns": [{"text": "scripted"}],
		"rules": [{"contains": "<|cursor|>", "turn": {"text": "ruled"}}]
	}`))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := geminitest.Start(geminitest.Options{Rules: sc.Rules}, sc.Turns...)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := newClient(t, srv)
	ask := func(text string) string {
		resp, err := c.Models.GenerateContent(context.Background(), "m", genai.Text(text), nil)
		if err != nil {
			t.Fatal(err)
		}
		return resp.Text()
	}
	got := []string{ask("a <|cursor|> b"), ask("hello"), ask("again <|cursor|>")}
	if want := []string{"ruled", "scripted", "ruled"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("answers %q, want %q", got, want)
	}
	if err := srv.Err(); err != nil {
		t.Errorf("rule answers counted against the script: %v", err)
	}
	if reqs := srv.Requests(); reqs[0].Rule == nil || reqs[1].Rule != nil || reqs[2].Seq != 3 {
		t.Errorf("requests' rules and numbers: %+v", reqs)
	}
	if _, err := geminitest.LoadScript(strings.NewReader(`{"rules": [{"contains": "x", "turn": {"text": "y"}}]}`)); err == nil {
		t.Error("LoadScript took a script with rules")
	}
}

func TestAbortsAreRecorded(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.Turn{Chunks: []geminitest.Chunk{{Text: "partial"}}, Hang: true},
		geminitest.Turn{Delay: time.Hour, Chunks: []geminitest.Chunk{{Text: "never"}}},
		geminitest.TextTurn("whole"))
	c := newClient(t, srv)
	// The first is cancelled mid-stream, the second before its headers.
	ctx, cancel := context.WithCancel(context.Background())
	for _, err := range c.Models.GenerateContentStream(ctx, "m", genai.Text("hi"), nil) {
		if err != nil {
			break
		}
		cancel()
	}
	ctx, cancel = context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range c.Models.GenerateContentStream(ctx, "m", genai.Text("hi"), nil) {
		}
	}()
	if _, err := srv.WaitRequests(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	cancel()
	<-done
	if _, err := c.Models.GenerateContent(context.Background(), "m", genai.Text("hi"), nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	aborts, err := srv.WaitAborts(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(aborts) != 2 || aborts[0].Seq+aborts[1].Seq != 3 || aborts[0].At.IsZero() {
		t.Errorf("aborts %+v, want requests 1 and 2", aborts)
	}
}

// A chunk's template is made from the request it answers: the last
// function response's result, cut by head to its first lines, with how
// many more there were said; the rest of the turn is as scripted.
func TestScriptTemplateMadeFromTheRequest(t *testing.T) {
	turns, err := geminitest.LoadScript(strings.NewReader(`[
		{"chunks": [{"thought": true, "text": "**Reading**"}, {"template": "{{.Tool}} said:\n{{head 2 .Result}}"}], "finishReason": "STOP"},
		{"chunks": [{"template": "[{{.Result}}]"}]}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	srv := geminitest.NewTestServer(t, turns...)
	c := newClient(t, srv)
	contents := []*genai.Content{
		genai.NewContentFromText("find them", genai.RoleUser),
		genai.NewContentFromFunctionCall("grep_search", map[string]any{"pattern": "TODO"}, genai.RoleModel),
		genai.NewContentFromFunctionResponse("grep_search", map[string]any{"output": "Found 3 matches\na.go:1: TODO one\nb.go:2: TODO two\nc.go:3: TODO three\n"}, genai.RoleUser),
	}
	resp, err := c.Models.GenerateContent(context.Background(), "m", contents, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := resp.Text(), "grep_search said:\nFound 3 matches\na.go:1: TODO one\n… (2 more lines)"; got != want {
		t.Errorf("answer %q, want %q", got, want)
	}
	if parts := resp.Candidates[0].Content.Parts; len(parts) < 1 || !parts[0].Thought {
		t.Errorf("the scripted thought is lost: %+v", parts)
	}
	// No function response: the template reads nothing, and says so.
	resp, err = c.Models.GenerateContent(context.Background(), "m", genai.Text("hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Text(); got != "[]" {
		t.Errorf("answer without a function response %q, want []", got)
	}
	// A template that cannot be read fails the script at load.
	for script, want := range map[string]string{
		`[{"chunks": [{"template": "{{nosuch .Result}}"}]}]`: `chunk 1: template: `,
		`[{"chunks": [{"text": "a", "template": "b"}]}]`:     `"text" and "template" are exclusive`,
	} {
		if _, err := geminitest.LoadScript(strings.NewReader(script)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("LoadScript(%s) = %v, want an error containing %q", script, err, want)
		}
	}
}
