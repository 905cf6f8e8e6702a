package geminitest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/template"
	"time"

	"google.golang.org/genai"
)

// Script is what a script file holds: the turns, answered in order, and
// the rules, which answer every request they match, however many.
type Script struct {
	Turns []Turn
	Rules []Rule
}

// LoadScript reads a script's turns (the format is in the package
// documentation); a script with rules is refused.
func LoadScript(r io.Reader) ([]Turn, error) {
	s, err := ReadScript(r)
	if err != nil {
		return nil, err
	}
	if len(s.Rules) > 0 {
		return nil, errors.New("parsing script: it has rules, which only ReadScript reads")
	}
	return s.Turns, nil
}

// ReadScript reads a script: a JSON array of turns, or an object
// {"turns": [...], "rules": [...]}.
func ReadScript(r io.Reader) (Script, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Script{}, fmt.Errorf("reading script: %w", err)
	}
	var file struct {
		Turns []json.RawMessage `json:"turns"`
		Rules []struct {
			Contains string          `json:"contains"`
			Turn     json.RawMessage `json:"turn"`
		} `json:"rules"`
	}
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&file); err != nil {
			return Script{}, fmt.Errorf("parsing script: want a JSON array of turns or {\"turns\": [...], \"rules\": [...]}: %w", err)
		}
	} else if err := json.Unmarshal(data, &file.Turns); err != nil {
		return Script{}, fmt.Errorf("parsing script: want a JSON array of turns: %w", err)
	}
	var s Script
	for i, msg := range file.Turns {
		t, err := parseTurn(msg)
		if err != nil {
			return Script{}, fmt.Errorf("script turn %d: %w", i+1, err)
		}
		s.Turns = append(s.Turns, t)
	}
	for i, r := range file.Rules {
		if r.Contains == "" {
			return Script{}, fmt.Errorf("script rule %d: needs \"contains\"", i+1)
		}
		t, err := parseTurn(r.Turn)
		if err != nil {
			return Script{}, fmt.Errorf("script rule %d: %w", i+1, err)
		}
		s.Rules = append(s.Rules, Rule{Contains: r.Contains, Turn: t})
	}
	return s, nil
}

type scriptTurn struct {
	Text         *string                                     `json:"text"`
	Chunks       []scriptChunk                               `json:"chunks"`
	Error        *scriptError                                `json:"error"`
	Delay        duration                                    `json:"delay"`
	Usage        *genai.GenerateContentResponseUsageMetadata `json:"usage"`
	FinishReason genai.FinishReason                          `json:"finishReason"`
	Hang         bool                                        `json:"hang"`
	NoCandidates bool                                        `json:"noCandidates"`
	Grounding    *genai.GroundingMetadata                    `json:"groundingMetadata"`
	NoFinish     bool                                        `json:"noFinishReason"`
	Cut          bool                                        `json:"cut"`
}

type scriptChunk struct {
	Text             string              `json:"text"`
	Template         string              `json:"template"`
	Thought          bool                `json:"thought"`
	ThoughtSignature []byte              `json:"thoughtSignature"`
	Call             *genai.FunctionCall `json:"call"`
	Delay            duration            `json:"delay"`
}

type scriptError struct {
	Code       int              `json:"code"`
	Status     string           `json:"status"`
	Message    string           `json:"message"`
	RetryDelay duration         `json:"retryDelay"`
	RetryAfter duration         `json:"retryAfter"`
	Details    []map[string]any `json:"details"`
}

func parseTurn(msg json.RawMessage) (Turn, error) {
	dec := json.NewDecoder(bytes.NewReader(msg))
	dec.DisallowUnknownFields()
	var st scriptTurn
	if err := dec.Decode(&st); err != nil {
		return Turn{}, err
	}
	t := Turn{
		Delay:          time.Duration(st.Delay),
		Usage:          st.Usage,
		FinishReason:   st.FinishReason,
		Hang:           st.Hang,
		NoCandidates:   st.NoCandidates,
		Grounding:      st.Grounding,
		NoFinishReason: st.NoFinish,
		Cut:            st.Cut,
	}
	if st.Text != nil {
		if st.Chunks != nil {
			return Turn{}, errors.New(`"text" and "chunks" are exclusive: put the text in a chunk`)
		}
		t.Chunks = []Chunk{}
		if *st.Text != "" {
			t.Chunks = append(t.Chunks, Chunk{Text: *st.Text})
		}
	}
	templates, err := t.addChunks(st.Chunks)
	if err != nil {
		return Turn{}, err
	}
	if e := st.Error; e != nil {
		if e.Code < 400 || e.Code > 599 {
			return Turn{}, fmt.Errorf("error code %d: want an HTTP error status (400-599)", e.Code)
		}
		if st.Hang {
			return Turn{}, errors.New(`"hang" and "error" are exclusive`)
		}
		t.Err = &APIError{
			Code:       e.Code,
			Status:     e.Status,
			Message:    e.Message,
			RetryDelay: time.Duration(e.RetryDelay),
			RetryAfter: time.Duration(e.RetryAfter),
			Details:    e.Details,
		}
	}
	if t.Cut && (t.Err != nil || t.Hang) {
		return Turn{}, errors.New(`"cut" excludes "error" and "hang"`)
	}
	if t.Chunks == nil && t.Err == nil && !t.Hang && !t.Cut {
		return Turn{}, errors.New(`a turn needs "text", "chunks", "error", "hang" or "cut"`)
	}
	if len(templates) > 0 {
		// Made from each request it answers, the rest of the turn as
		// scripted.
		base := t
		t.From = func(req Request) Turn { return rendered(base, templates, req) }
	}
	return t, nil
}

// addChunks adds the script's chunks to t, and returns the templates of
// those made from each request the turn answers, by index.
func (t *Turn) addChunks(chunks []scriptChunk) (map[int]*template.Template, error) {
	templates := map[int]*template.Template{}
	for i, sc := range chunks {
		if sc.Text == "" && sc.Template == "" && sc.Call == nil && sc.ThoughtSignature == nil {
			return nil, fmt.Errorf("chunk %d: needs text, template, call or thoughtSignature", i+1)
		}
		if sc.Text != "" && sc.Template != "" {
			return nil, fmt.Errorf(`chunk %d: "text" and "template" are exclusive`, i+1)
		}
		if sc.Call != nil && sc.Call.Name == "" {
			return nil, fmt.Errorf("chunk %d: call needs a name", i+1)
		}
		if sc.Template != "" {
			tm, err := parseChunkTemplate(sc.Template)
			if err != nil {
				return nil, fmt.Errorf("chunk %d: %w", i+1, err)
			}
			templates[len(t.Chunks)] = tm
		}
		t.Chunks = append(t.Chunks, Chunk{
			Text:             sc.Text,
			Thought:          sc.Thought,
			ThoughtSignature: sc.ThoughtSignature,
			Call:             sc.Call,
			Delay:            time.Duration(sc.Delay),
		})
	}
	return templates, nil
}

// duration reads a Go duration string such as "1.5s" or "200ms".
type duration time.Duration

func (d *duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration %s: want a string such as \"1s\" or \"200ms\"", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = duration(v)
	return nil
}
