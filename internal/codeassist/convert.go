package codeassist

import (
	"encoding/json"
	"fmt"

	"google.golang.org/genai"
)

// The request and answer shapes of converter.ts.

type generateRequest struct {
	Model        string        `json:"model"`
	Project      string        `json:"project,omitempty"`
	UserPromptID string        `json:"user_prompt_id,omitempty"`
	Request      vertexRequest `json:"request"`
}

type vertexRequest struct {
	Contents          []*genai.Content        `json:"contents"`
	SystemInstruction *genai.Content          `json:"systemInstruction,omitempty"`
	CachedContent     string                  `json:"cachedContent,omitempty"`
	Tools             []*genai.Tool           `json:"tools,omitempty"`
	ToolConfig        *genai.ToolConfig       `json:"toolConfig,omitempty"`
	Labels            map[string]string       `json:"labels,omitempty"`
	SafetySettings    []*genai.SafetySetting  `json:"safetySettings,omitempty"`
	GenerationConfig  *genai.GenerationConfig `json:"generationConfig,omitempty"`
	SessionID         string                  `json:"session_id,omitempty"`
}

func toGenerateRequest(model, project, promptID, sessionID string, contents []*genai.Content, cfg *genai.GenerateContentConfig) generateRequest {
	req := vertexRequest{Contents: toContents(contents), SessionID: sessionID}
	if cfg != nil {
		if cfg.SystemInstruction != nil {
			req.SystemInstruction = toContent(cfg.SystemInstruction)
		}
		req.CachedContent = cfg.CachedContent
		req.Tools = cfg.Tools
		req.ToolConfig = cfg.ToolConfig
		req.Labels = cfg.Labels
		req.SafetySettings = cfg.SafetySettings
		req.GenerationConfig = toGenerationConfig(cfg)
	}
	return generateRequest{Model: model, Project: project, UserPromptID: promptID, Request: req}
}

// toGenerationConfig moves the generation fields of the SDK's flat config
// under generationConfig, as converter.ts's toVertexGenerationConfig does.
func toGenerationConfig(cfg *genai.GenerateContentConfig) *genai.GenerationConfig {
	gc := &genai.GenerationConfig{
		Temperature:          cfg.Temperature,
		TopP:                 cfg.TopP,
		TopK:                 cfg.TopK,
		CandidateCount:       cfg.CandidateCount,
		MaxOutputTokens:      cfg.MaxOutputTokens,
		StopSequences:        cfg.StopSequences,
		ResponseLogprobs:     cfg.ResponseLogprobs,
		Logprobs:             cfg.Logprobs,
		PresencePenalty:      cfg.PresencePenalty,
		FrequencyPenalty:     cfg.FrequencyPenalty,
		Seed:                 cfg.Seed,
		ResponseMIMEType:     cfg.ResponseMIMEType,
		ResponseSchema:       cfg.ResponseSchema,
		ResponseJsonSchema:   cfg.ResponseJsonSchema,
		RoutingConfig:        cfg.RoutingConfig,
		ModelSelectionConfig: cfg.ModelSelectionConfig,
		MediaResolution:      cfg.MediaResolution,
		SpeechConfig:         cfg.SpeechConfig,
		AudioTimestamp:       cfg.AudioTimestamp,
		ThinkingConfig:       cfg.ThinkingConfig,
	}
	for _, m := range cfg.ResponseModalities {
		gc.ResponseModalities = append(gc.ResponseModalities, genai.Modality(m))
	}
	return gc
}

func toContents(contents []*genai.Content) []*genai.Content {
	out := make([]*genai.Content, 0, len(contents))
	for _, c := range contents {
		if c != nil {
			out = append(out, toContent(c))
		}
	}
	return out
}

// toContent copies c with its thought parts made acceptable to the Code
// Assist server, as converter.ts's toPart does: the thought flag dropped,
// a thought's text marked "[Thought: true]" unless the part carries a call,
// a response or data.
func toContent(c *genai.Content) *genai.Content {
	out := &genai.Content{Role: c.Role, Parts: make([]*genai.Part, 0, len(c.Parts))}
	for _, p := range c.Parts {
		if p == nil {
			continue
		}
		if p.Thought {
			cp := *p
			cp.Thought = false
			if p.FunctionCall == nil && p.FunctionResponse == nil && p.InlineData == nil && p.FileData == nil {
				if cp.Text != "" {
					cp.Text += "\n[Thought: true]"
				} else {
					cp.Text = "[Thought: true]"
				}
			}
			p = &cp
		}
		out.Parts = append(out.Parts, p)
	}
	return out
}

// fromGenerateResponse unwraps one {"response": ..., "traceId"} answer;
// an in-stream {"error": ...} is returned as a genai.APIError.
func fromGenerateResponse(data []byte) (*genai.GenerateContentResponse, error) {
	var wrapped struct {
		Response *genai.GenerateContentResponse `json:"response"`
		TraceID  string                         `json:"traceId"`
		Error    *genai.APIError                `json:"error"`
	}
	if err := json.Unmarshal(data, &wrapped); err != nil {
		return nil, fmt.Errorf("decoding a Code Assist answer: %w", err)
	}
	if wrapped.Error != nil {
		return nil, *wrapped.Error
	}
	out := &genai.GenerateContentResponse{ResponseID: wrapped.TraceID}
	if r := wrapped.Response; r != nil {
		out.Candidates = r.Candidates
		out.PromptFeedback = r.PromptFeedback
		out.UsageMetadata = r.UsageMetadata
		out.ModelVersion = r.ModelVersion
	}
	return out, nil
}
