package agent

import (
	"context"
	"errors"
	"iter"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// summaryGenerator answers every request with summary and counts every
// history as tokens long.
type summaryGenerator struct {
	summary string
	tokens  int32
	asked   []string // the models asked
	counted int      // the countTokens calls
}

func (g *summaryGenerator) GenerateContentStream(context.Context, string, []*genai.Content, *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		yield(nil, errors.New("not streamed"))
	}
}

func (g *summaryGenerator) GenerateContent(_ context.Context, model string, _ []*genai.Content, _ *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	g.asked = append(g.asked, model)
	return &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: genai.NewContentFromText(g.summary, genai.RoleModel)}}}, nil
}

func (g *summaryGenerator) CountTokens(context.Context, string, []*genai.Content, *genai.CountTokensConfig) (*genai.CountTokensResponse, error) {
	g.counted++
	return &genai.CountTokensResponse{TotalTokens: g.tokens}, nil
}

// compressionRecorder is a compressionTurn that notes what it is told.
type compressionRecorder struct {
	infos []dialog.CompressionInfo
}

func (r *compressionRecorder) compressed(info dialog.CompressionInfo) {
	r.infos = append(r.infos, info)
}

func newTestCompressor(c *chat, gen ContentGenerator, turn compressionTurn) *compressor {
	return &compressor{
		chat: c, gen: gen, logger: zap.NewNop(), log: apiLog{log: zap.NewNop(), now: time.Now},
		threshold: 0.5, tokenLimit: func(string) int { return 1000 },
		turnModel: func() string { return "gemini-3-flash-preview" }, promptID: "p", turn: turn,
		tellRetry: func(string, string) func(int, error, time.Duration) { return nil },
	}
}

func exchanges(n int) *chat {
	c := &chat{}
	for range n {
		c.record(text(genai.RoleUser, "a question of some length"))
		c.record(text(genai.RoleModel, "an answer of some length"))
	}
	return c
}

// The compressor needs no session: its history, model and turn are
// passed in. It summarises only past its threshold, asks for the
// summary and its check (0.61's two calls), tells the turn, and gives up
// for good on a summary that would not be smaller.
func TestCompressorOnItsOwn(t *testing.T) {
	c := exchanges(4)
	gen := &summaryGenerator{summary: "<state_snapshot>s</state_snapshot>", tokens: 100}
	rec := &compressionRecorder{}
	comp := newTestCompressor(c, gen, rec)

	c.promptTokens = 499
	if _, _, due := comp.due(); due {
		t.Fatal("due under the threshold (499 of 0.5×1000)")
	}
	c.promptTokens = 500
	history, before, due := comp.due()
	if !due || before != 500 {
		t.Fatalf("due = %v, before = %d; want due at 500", due, before)
	}
	comp.compress(context.Background(), history, before)
	after := estimateTokens(c.history)
	if len(rec.infos) != 1 || rec.infos[0] != (dialog.CompressionInfo{Before: 500, After: after}) {
		t.Errorf("told %v, want one compression 500 → %d (estimated)", rec.infos, after)
	}
	if c.history[0].Parts[0].Text != gen.summary || c.promptTokens != after || c.epoch != 1 {
		t.Errorf("history not replaced: first %q, tokens %d, epoch %d", c.history[0].Parts[0].Text, c.promptTokens, c.epoch)
	}
	if len(gen.asked) != 2 || gen.asked[0] != "gemini-3-flash-preview" || gen.asked[1] != gen.asked[0] || gen.counted != 0 {
		t.Errorf("summarised on %v and counted %d times, want the flash compression model twice (summary, check) and no count", gen.asked, gen.counted)
	}

	grown := exchanges(4)
	grown.promptTokens = 600
	gen.summary = strings.Repeat("a long-winded summary. ", 200) // about 1150 tokens
	comp = newTestCompressor(grown, gen, rec)
	history, before, _ = comp.due()
	comp.compress(context.Background(), history, before)
	if !grown.compressionFailed || grown.epoch != 0 {
		t.Errorf("a summary larger than the history: failed %v, epoch %d; want it discarded for good", grown.compressionFailed, grown.epoch)
	}
	if _, _, due := comp.due(); due {
		t.Error("due again after a summary that would not be smaller")
	}
}

// The compressed history is counted as 0.61 counts it: estimated, but
// by the model when a part is a file (an image, a PDF).
func TestCompressorCountsFilesWithTheModel(t *testing.T) {
	gen := &summaryGenerator{tokens: 4242}
	comp := newTestCompressor(&chat{}, gen, &compressionRecorder{})
	texts := []*genai.Content{text(genai.RoleUser, "just words")}
	if got := comp.countTokens(context.Background(), texts); got != estimateTokens(texts) || gen.counted != 0 {
		t.Errorf("text counted %d (%d calls), want the estimate %d and no call", got, gen.counted, estimateTokens(texts))
	}
	image := []*genai.Content{{Role: genai.RoleUser, Parts: []*genai.Part{{InlineData: &genai.Blob{MIMEType: "image/png", Data: []byte("png")}}}}}
	if got := comp.countTokens(context.Background(), image); got != 4242 || gen.counted != 1 {
		t.Errorf("an image counted %d (%d calls), want the model's 4242", got, gen.counted)
	}
}

// Asking whether compression is due, before every request, copies no
// history while the last prompt's tokens are under the threshold; over
// it, or uncounted, the history is read as before.
func TestCompressionDueWithoutCopyingTheHistory(t *testing.T) {
	c := exchanges(50)
	comp := newTestCompressor(c, &summaryGenerator{}, &compressionRecorder{})
	c.promptTokens = 100 // of 1000, threshold 0.5
	if allocs := testing.AllocsPerRun(10, func() {
		if _, _, due := comp.due(); due {
			t.Fatal("due under the threshold")
		}
	}); allocs != 0 {
		t.Errorf("asking made %.0f allocations, want none", allocs)
	}
	c.promptTokens = 600
	if history, before, due := comp.due(); !due || before != 600 || len(history) != 100 {
		t.Errorf("over the threshold: due %v, %d tokens, %d contents; want due, 600, 100", due, before, len(history))
	}
}
