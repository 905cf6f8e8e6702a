package geminitest_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

func TestLoadScript(t *testing.T) {
	turns, err := geminitest.LoadScript(strings.NewReader(`[
		{"text":"hello"},
		{"chunks":[
			{"thought":true,"text":"**Plan** reading"},
			{"call":{"id":"x1","name":"read_file","args":{"path":"a.go"}},"thoughtSignature":"c2ln","delay":"5ms"}
		],"delay":"1s","finishReason":"MAX_TOKENS","usage":{"promptTokenCount":3,"totalTokenCount":4}},
		{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"quota","retryDelay":"250ms","retryAfter":"2s"}},
		{"text":""},
		{"chunks":[{"text":"wait"}],"hang":true},
		{"text":"Go is fast.","groundingMetadata":{"groundingChunks":[{"web":{"uri":"https://go.dev","title":"go.dev"}}],"groundingSupports":[{"segment":{"startIndex":0,"endIndex":11,"text":"Go is fast."},"groundingChunkIndices":[0]}]}}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 6 {
		t.Fatalf("got %d turns", len(turns))
	}
	if len(turns[0].Chunks) != 1 || turns[0].Chunks[0].Text != "hello" {
		t.Errorf("turn 1 = %+v", turns[0])
	}
	t2 := turns[1]
	if len(t2.Chunks) != 2 || !t2.Chunks[0].Thought || t2.Delay != time.Second || t2.FinishReason != genai.FinishReasonMaxTokens || t2.Usage.PromptTokenCount != 3 {
		t.Errorf("turn 2 = %+v", t2)
	}
	c := t2.Chunks[1]
	if c.Call == nil || c.Call.ID != "x1" || c.Call.Args["path"] != "a.go" || !bytes.Equal(c.ThoughtSignature, []byte("sig")) || c.Delay != 5*time.Millisecond {
		t.Errorf("turn 2 chunk 2 = %+v", c)
	}
	e := turns[2].Err
	if e == nil || e.Code != 429 || e.Status != "RESOURCE_EXHAUSTED" || e.Message != "quota" || e.RetryDelay != 250*time.Millisecond || e.RetryAfter != 2*time.Second {
		t.Errorf("turn 3 error = %+v", e)
	}
	if turns[3].Chunks == nil || len(turns[3].Chunks) != 0 {
		t.Errorf(`{"text":""} = %+v, want an empty answer`, turns[3])
	}
	if !turns[4].Hang {
		t.Errorf("turn 5 = %+v", turns[4])
	}
	if g := turns[5].Grounding; g == nil || g.GroundingChunks[0].Web.Title != "go.dev" || g.GroundingSupports[0].Segment.EndIndex != 11 || g.GroundingSupports[0].GroundingChunkIndices[0] != 0 {
		t.Errorf("turn 6 grounding = %+v", g)
	}
}

func TestLoadScriptCutsAndDetails(t *testing.T) {
	turns, err := geminitest.LoadScript(strings.NewReader(`[
		{"chunks":[{"text":"half"}],"cut":true},
		{"cut":true},
		{"text":"no end","noFinishReason":true},
		{"error":{"code":429,"message":"daily","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerDayPerProjectPerModel"}]}]}}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	if !turns[0].Cut || len(turns[0].Chunks) != 1 || !turns[1].Cut || len(turns[1].Chunks) != 0 {
		t.Errorf("cut turns = %+v %+v", turns[0], turns[1])
	}
	if !turns[2].NoFinishReason || turns[2].Chunks[0].Text != "no end" {
		t.Errorf("turn 3 = %+v", turns[2])
	}
	if d := turns[3].Err.Details; len(d) != 1 || d[0]["@type"] != "type.googleapis.com/google.rpc.QuotaFailure" {
		t.Errorf("turn 4 details = %v", d)
	}
}

func TestLoadScriptErrors(t *testing.T) {
	for _, tc := range []struct{ script, want string }{
		{`{"text":"x"}`, "JSON array"},
		{`[{"text":"a"},{"txt":"b"}]`, `turn 2: json: unknown field "txt"`},
		{`[{}]`, `needs "text", "chunks", "error", "hang" or "cut"`},
		{`[{"cut":true,"hang":true}]`, `"cut" excludes`},
		{`[{"text":"a","chunks":[{"text":"b"}]}]`, "exclusive"},
		{`[{"chunks":[{"thought":true}]}]`, "chunk 1: needs text"},
		{`[{"chunks":[{"call":{"args":{}}}]}]`, "call needs a name"},
		{`[{"error":{"code":200}}]`, "error code 200"},
		{`[{"delay":"soon","text":"a"}]`, "soon"},
		{`[{"delay":5,"text":"a"}]`, `want a string such as "1s"`},
		{`[{"error":{"code":500},"hang":true}]`, "exclusive"},
	} {
		_, err := geminitest.LoadScript(strings.NewReader(tc.script))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LoadScript(%s) = %v, want an error containing %q", tc.script, err, tc.want)
		}
	}
}
