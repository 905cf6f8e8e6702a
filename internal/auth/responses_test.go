package auth

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/genai"
)

// franceLine is a line as Gemini CLI 0.61 records a streamed answer.
const franceLine = `{"method":"generateContentStream","response":[{"candidates":[{"content":{"parts":[{"text":"The capital of France is Paris."}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":7,"candidatesTokenCount":7,"totalTokenCount":14,"promptTokensDetails":[{"modality":"TEXT","tokenCount":7}]}}]}`

const classifierLine = `{"method":"generateContent","response":{"candidates":[{"content":{"parts":[{"text":"{\"complexity_score\":10}"}],"role":"model"},"finishReason":"STOP","index":0}]}}`

const countLine = `{"method":"countTokens","response":{"totalTokens":42}}`

func writeResponses(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "session.responses")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func newReplay(t *testing.T, mode ReplayMode, lines ...string) ContentGenerator {
	t.Helper()
	gen, err := NewReplay(writeResponses(t, lines...), mode)
	if err != nil {
		t.Fatal(err)
	}
	return gen
}

// streamText is the text of a stream's chunks, and its error.
func streamText(gen ContentGenerator, prompt string) (string, error) {
	var b strings.Builder
	for resp, err := range gen.GenerateContentStream(context.Background(), "gemini-2.5-flash", []*genai.Content{genai.NewContentFromText(prompt, genai.RoleUser)}, nil) {
		if err != nil {
			return b.String(), err
		}
		b.WriteString(resp.Text())
	}
	return b.String(), nil
}

func TestReplayStrictAnswersInOrderAndChecksTheMethod(t *testing.T) {
	gen := newReplay(t, Strict, classifierLine, "", franceLine, countLine)
	resp, err := gen.GenerateContent(context.Background(), "flash-lite", nil, nil)
	if err != nil || resp.Text() != `{"complexity_score":10}` {
		t.Fatalf("first call: %v %v", resp, err)
	}
	text, err := streamText(gen, "What is the capital of France?")
	if err != nil || text != "The capital of France is Paris." {
		t.Fatalf("second call: %q %v", text, err)
	}
	// The next line is countTokens: a stream is refused as 0.61 refuses it.
	_, err = streamText(gen, "again")
	want := "Unexpected response type, next response was for countTokens but expected generateContentStream"
	if err == nil || err.Error() != want {
		t.Fatalf("a call of another method than the next line's: %v, want %q", err, want)
	}
	_, err = gen.CountTokens(context.Background(), "m", nil, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "No more mock responses for countTokens, got request:\n{\"model\":\"m\"") {
		t.Fatalf("a call after the last line: %v", err)
	}
}

func TestReplayNonStrictTakesTheFirstOfTheMethod(t *testing.T) {
	gen := newReplay(t, NonStrict, franceLine, countLine, classifierLine)
	resp, err := gen.GenerateContent(context.Background(), "flash-lite", nil, nil)
	if err != nil || resp.Text() != `{"complexity_score":10}` {
		t.Fatalf("generateContent out of order: %v %v", resp, err)
	}
	count, err := gen.CountTokens(context.Background(), "m", nil, nil)
	if err != nil || count.TotalTokens != 42 {
		t.Fatalf("countTokens: %v %v", count, err)
	}
	if text, err := streamText(gen, "France?"); err != nil || text != "The capital of France is Paris." {
		t.Fatalf("stream: %q %v", text, err)
	}
	_, err = streamText(gen, "France again?")
	if err == nil || !strings.HasPrefix(err.Error(), "No more mock responses for generateContentStream, got request:\n") ||
		!strings.Contains(err.Error(), `"text":"France again?"`) {
		t.Fatalf("no stream left: %v", err)
	}
}

func TestReplayRefusesAFileItCannotReplay(t *testing.T) {
	for name, tc := range map[string]struct {
		line, want string
	}{
		"not JSON":        {`{"method":`, "line 2: "},
		"unknown method":  {`{"method":"predict","response":{}}`, `line 2: method "predict" is none of`},
		"stream not list": {`{"method":"generateContentStream","response":{"candidates":[]}}`, "line 2: the generateContentStream response: "},
		"null response":   {`{"method":"generateContent","response":null}`, "line 2: the generateContent response: it is null"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := NewReplay(writeResponses(t, franceLine, tc.line), Strict)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "session.responses") {
				t.Fatalf("error %v, want it to name the file and say %q", err, tc.want)
			}
		})
	}
	if _, err := NewReplay(filepath.Join(t.TempDir(), "missing"), Strict); err == nil {
		t.Fatal("a missing file was taken")
	}
}

// scripted is a generator whose stream gives chunks, whose generate gives
// generated, and whose calls fail with fail when it is set.
type scripted struct {
	chunks    []*genai.GenerateContentResponse
	generated *genai.GenerateContentResponse
	fail      error
}

func (s *scripted) GenerateContentStream(context.Context, string, []*genai.Content, *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		for _, c := range s.chunks {
			if !yield(c, nil) {
				return
			}
		}
		if s.fail != nil {
			yield(nil, s.fail)
		}
	}
}

func (s *scripted) GenerateContent(context.Context, string, []*genai.Content, *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	return s.generated, s.fail
}

func (s *scripted) CountTokens(context.Context, string, []*genai.Content, *genai.CountTokensConfig) (*genai.CountTokensResponse, error) {
	return &genai.CountTokensResponse{TotalTokens: 9}, s.fail
}

func answer(text string, finish genai.FinishReason) *genai.GenerateContentResponse {
	return &genai.GenerateContentResponse{
		ResponseID:   "dropped",
		ModelVersion: "dropped too",
		Candidates:   []*genai.Candidate{{Content: genai.NewContentFromText(text, genai.RoleModel), FinishReason: finish}},
		UsageMetadata: &genai.GenerateContentResponseUsageMetadata{
			PromptTokenCount: 3, CandidatesTokenCount: 2, TotalTokenCount: 5,
		},
	}
}

// A recording keeps what 0.61 keeps of each answer, a line per call in
// the order they ended, and replays to the same answers.
func TestRecorderWritesWhatReplayAnswers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.responses")
	model := &scripted{
		chunks:    []*genai.GenerateContentResponse{answer("Par", ""), answer("is.", genai.FinishReasonStop)},
		generated: answer(`{"complexity_score":90}`, genai.FinishReasonStop),
	}
	var warned []error
	rec := NewRecorder(model, path, func(err error) { warned = append(warned, err) })
	ctx := context.Background()
	if _, err := rec.GenerateContent(ctx, "flash-lite", nil, nil); err != nil {
		t.Fatal(err)
	}
	if text, err := streamText(rec, "France?"); err != nil || text != "Paris." {
		t.Fatalf("recorded stream: %q %v", text, err)
	}
	if _, err := rec.CountTokens(ctx, "m", nil, nil); err != nil {
		t.Fatal(err)
	}
	// A failed call is not recorded.
	model.fail = errors.New("503")
	if _, err := rec.GenerateContent(ctx, "m", nil, nil); err == nil {
		t.Fatal("the failure was not passed on")
	}
	if _, err := streamText(rec, "fails"); err == nil {
		t.Fatal("the stream's failure was not passed on")
	}
	if len(warned) > 0 {
		t.Fatalf("warned: %v", warned)
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	want := []string{
		`{"method":"generateContent","response":{"candidates":[{"content":{"parts":[{"text":"{\"complexity_score\":90}"}],"role":"model"},"finishReason":"STOP"}],"usageMetadata":{"candidatesTokenCount":2,"promptTokenCount":3,"totalTokenCount":5}}}`,
		`{"method":"generateContentStream","response":[{"candidates":[{"content":{"parts":[{"text":"Par"}],"role":"model"}}],"usageMetadata":{"candidatesTokenCount":2,"promptTokenCount":3,"totalTokenCount":5}},{"candidates":[{"content":{"parts":[{"text":"is."}],"role":"model"},"finishReason":"STOP"}],"usageMetadata":{"candidatesTokenCount":2,"promptTokenCount":3,"totalTokenCount":5}}]}`,
		`{"method":"countTokens","response":{"totalTokens":9}}`,
	}
	if !reflect.DeepEqual(lines, want) {
		t.Fatalf("recorded:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}

	replayed, err := NewReplay(path, Strict)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := replayed.GenerateContent(ctx, "flash-lite", nil, nil)
	if err != nil || resp.Text() != `{"complexity_score":90}` || resp.UsageMetadata.TotalTokenCount != 5 {
		t.Fatalf("replayed generate: %+v %v", resp, err)
	}
	if text, err := streamText(replayed, "France?"); err != nil || text != "Paris." {
		t.Fatalf("replayed stream: %q %v", text, err)
	}
	if n, err := replayed.CountTokens(ctx, "m", nil, nil); err != nil || n.TotalTokens != 9 {
		t.Fatalf("replayed count: %v %v", n, err)
	}
}

// A stream its caller stopped reading (a loop found, a hook's stop) is
// recorded as far as it was read: its replay stops at the same place.
func TestRecorderRecordsAStreamStoppedEarly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.responses")
	model := &scripted{chunks: []*genai.GenerateContentResponse{answer("one", ""), answer("two", ""), answer("three", genai.FinishReasonStop)}}
	rec := NewRecorder(model, path, nil)
	for range rec.GenerateContentStream(context.Background(), "m", nil, nil) {
		break
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var line recordedCall
	if err := json.Unmarshal(data, &line); err != nil {
		t.Fatal(err)
	}
	chunks, err := line.stream()
	if err != nil || len(chunks) != 1 || chunks[0].Text() != "one" {
		t.Fatalf("recorded %s, want the one chunk read", data)
	}
}

// A line that cannot be written is told, and the answer still comes.
func TestRecorderTellsAFailedWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no such dir", "rec.responses")
	var warned []error
	rec := NewRecorder(&scripted{generated: answer("hi", genai.FinishReasonStop)}, path, func(err error) { warned = append(warned, err) })
	resp, err := rec.GenerateContent(context.Background(), "m", nil, nil)
	if err != nil || resp.Text() != "hi" {
		t.Fatalf("answer: %v %v", resp, err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0].Error(), "recording the model's generateContent answer in "+path) {
		t.Fatalf("warned %v", warned)
	}
}

// A recorded generator is still closed and asked for its Code Assist
// client as the one it records.
func TestRecorderUnwraps(t *testing.T) {
	g := NewGenerator(Auth{Type: GeminiAPIKey})
	if unwrap(NewRecorder(g, "x", nil)) != g {
		t.Fatal("the recorder does not unwrap to its generator")
	}
	if _, ok, err := CodeAssistClient(context.Background(), NewRecorder(g, "x", nil)); ok || err != nil {
		t.Fatalf("an API key's generator has a Code Assist client: %v %v", ok, err)
	}
}
