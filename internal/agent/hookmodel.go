package agent

import (
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genai"
)

// The model hooks' view of a request and a response: Gemini CLI's
// decoupled LLMRequest and LLMResponse (hookTranslator.ts), text only.
// What a hook changes is merged back so that what it cannot see (calls,
// their responses, thought signatures) is kept.

// modelRequest is one model request of the turn loop, as the BeforeModel
// hooks left it.
type modelRequest struct {
	// model is the model a hook chose; "" sends to the active model.
	model    string
	contents []*genai.Content
	config   *genai.GenerateContentConfig
}

// hookRequest is a request as hooks read it (Gemini CLI's LLMRequest):
// the model, each content's text as a message (a content without text is
// left out, as in Gemini CLI), and the generation parameters set.
func hookRequest(model string, contents []*genai.Content, config *genai.GenerateContentConfig) map[string]any {
	messages := []map[string]any{}
	for _, c := range contents {
		if text := contentText(c); text != "" {
			messages = append(messages, map[string]any{"role": hookRole(c.Role), "content": text})
		}
	}
	params := map[string]any{}
	if config != nil {
		if config.Temperature != nil {
			params["temperature"] = *config.Temperature
		}
		if config.MaxOutputTokens != 0 {
			params["maxOutputTokens"] = config.MaxOutputTokens
		}
		if config.TopP != nil {
			params["topP"] = *config.TopP
		}
		if config.TopK != nil {
			params["topK"] = *config.TopK
		}
	}
	return map[string]any{"model": model, "messages": messages, "config": params}
}

func hookRole(role string) string {
	if role == genai.RoleModel {
		return "model"
	}
	return "user"
}

// hookText reports whether p is a part hooks see: text, not a thought.
func hookText(p *genai.Part) bool { return isText(p) && p.Text != "" }

// contentText is the text of c's parts that hooks see.
func contentText(c *genai.Content) string {
	var text strings.Builder
	for _, p := range c.Parts {
		if hookText(p) {
			text.WriteString(p.Text)
		}
	}
	return text.String()
}

// applyHookRequest is req with a BeforeModel hook's llm_request merged
// in, as Gemini CLI's fromHookLLMRequest merges it: "model" replaces the
// model; "messages" replace the text of the contents that had text, in
// order, keeping their other parts, and messages beyond them are new
// contents; "config" sets the generation parameters it names. The
// contents are new: the conversation kept is not changed.
func applyHookRequest(req modelRequest, changes map[string]any) (modelRequest, error) {
	if v, ok := changes["model"]; ok && v != nil {
		model, ok := v.(string)
		if !ok {
			return req, fmt.Errorf("its model is %v, not a name", v)
		}
		req.model = model
	}
	if v, ok := changes["messages"]; ok && v != nil {
		messages, err := hookMessages(v)
		if err != nil {
			return req, err
		}
		req.contents = mergeMessages(req.contents, messages)
	}
	if v, ok := changes["config"]; ok && v != nil {
		params, ok := v.(map[string]any)
		if !ok {
			return req, errors.New("its config is not an object")
		}
		config, err := applyHookParams(req.config, params)
		if err != nil {
			return req, err
		}
		req.config = config
	}
	return req, nil
}

// hookMessage is one message of an LLMRequest.
type hookMessage struct{ role, text string }

func hookMessages(v any) ([]hookMessage, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, errors.New("its messages are not a list")
	}
	out := make([]hookMessage, 0, len(list))
	for i, item := range list {
		m, _ := item.(map[string]any)
		role, _ := m["role"].(string)
		text, isString := m["content"].(string)
		switch {
		case m == nil:
			return nil, fmt.Errorf("its message %d is not an object", i)
		case role != "user" && role != "model":
			return nil, fmt.Errorf("its message %d has role %q; Gemini takes only \"user\" and \"model\" turns", i, role)
		case !isString:
			return nil, fmt.Errorf("the content of its message %d is not text", i)
		}
		out = append(out, hookMessage{role: role, text: text})
	}
	return out, nil
}

// mergeMessages puts the hook's messages back into contents: the i-th
// content with text takes the i-th message's role and text, before its
// other parts; contents without text stay as they are; extra messages
// become contents of their own. Contents left without a message keep
// their text.
func mergeMessages(contents []*genai.Content, messages []hookMessage) []*genai.Content {
	out := make([]*genai.Content, 0, max(len(contents), len(messages)))
	next := 0
	for _, c := range contents {
		if contentText(c) == "" || next == len(messages) {
			out = append(out, c)
			continue
		}
		m := messages[next]
		next++
		parts := []*genai.Part{{Text: m.text, ThoughtSignature: firstTextSignature(c.Parts)}}
		for _, p := range c.Parts {
			if !hookText(p) {
				parts = append(parts, p)
			}
		}
		out = append(out, &genai.Content{Role: m.role, Parts: parts})
	}
	for _, m := range messages[next:] {
		out = append(out, genai.NewContentFromText(m.text, genai.Role(m.role)))
	}
	return out
}

func firstTextSignature(parts []*genai.Part) []byte {
	for _, p := range parts {
		if hookText(p) && p.ThoughtSignature != nil {
			return p.ThoughtSignature
		}
	}
	return nil
}

// applyHookParams is config (copied) with the generation parameters of
// an LLMRequest's config that are set; null unsets one.
func applyHookParams(config *genai.GenerateContentConfig, params map[string]any) (*genai.GenerateContentConfig, error) {
	c := &genai.GenerateContentConfig{}
	if config != nil {
		copied := *config
		c = &copied
	}
	for key, v := range params {
		var n float64
		if v != nil {
			var ok bool
			if n, ok = v.(float64); !ok {
				return nil, fmt.Errorf("its config.%s is not a number", key)
			}
		}
		f32 := func() *float32 {
			if v == nil {
				return nil
			}
			return genai.Ptr(float32(n))
		}
		switch key {
		case "temperature":
			c.Temperature = f32()
		case "topP":
			c.TopP = f32()
		case "topK":
			c.TopK = f32()
		case "maxOutputTokens":
			c.MaxOutputTokens = int32(n)
		}
	}
	return c, nil
}

// hookResponse is a response as hooks read it (Gemini CLI's LLMResponse):
// its text, and each candidate's text parts (not its thoughts or calls).
func hookResponse(resp *genai.GenerateContentResponse) map[string]any {
	out := map[string]any{}
	candidates := []map[string]any{}
	for i, c := range resp.Candidates {
		parts := []string{}
		if c.Content != nil {
			for _, p := range c.Content.Parts {
				if hookText(p) {
					parts = append(parts, p.Text)
				}
			}
			if i == 0 {
				out["text"] = contentText(c.Content)
			}
		}
		candidate := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": c.Index}
		if c.FinishReason != "" {
			candidate["finishReason"] = string(c.FinishReason)
		}
		candidates = append(candidates, candidate)
	}
	out["candidates"] = candidates
	if u := resp.UsageMetadata; u != nil {
		out["usageMetadata"] = map[string]any{"promptTokenCount": u.PromptTokenCount, "candidatesTokenCount": u.CandidatesTokenCount, "totalTokenCount": u.TotalTokenCount}
	}
	return out
}

// hookAnswer is the first candidate of an LLMResponse a hook gave: its
// text parts and finish reason. ok is false when it has no text parts
// (Gemini CLI ignores such a response); a response that is not an
// LLMResponse is an error.
func hookAnswer(v map[string]any) (parts []string, finish genai.FinishReason, ok bool, err error) {
	candidates, isList := v["candidates"].([]any)
	if v["candidates"] != nil && !isList {
		return nil, "", false, errors.New("its candidates are not a list")
	}
	if len(candidates) == 0 {
		// A response of text alone is taken as one candidate.
		if text, _ := v["text"].(string); text != "" {
			return []string{text}, "", true, nil
		}
		return nil, "", false, nil
	}
	c, _ := candidates[0].(map[string]any)
	content, _ := c["content"].(map[string]any)
	list, isList := content["parts"].([]any)
	if c == nil || content == nil || content["parts"] != nil && !isList {
		return nil, "", false, errors.New("its first candidate has no content.parts list")
	}
	for i, p := range list {
		text, isString := p.(string)
		if !isString {
			return nil, "", false, fmt.Errorf("part %d of its first candidate is not text", i)
		}
		parts = append(parts, text)
	}
	reason, _ := c["finishReason"].(string)
	return parts, genai.FinishReason(reason), len(parts) > 0, nil
}

// syntheticResponse is the response a BeforeModel hook gave instead of
// the model's; it finished (STOP) unless it says otherwise, as in Gemini
// CLI.
func syntheticResponse(v map[string]any) (*genai.GenerateContentResponse, error) {
	parts, finish, ok, err := hookAnswer(v)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New("it has no text")
	}
	if finish == "" {
		finish = genai.FinishReasonStop
	}
	content := &genai.Content{Role: genai.RoleModel}
	for _, text := range parts {
		content.Parts = append(content.Parts, &genai.Part{Text: text})
	}
	return &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: content, FinishReason: finish}}}, nil
}

// replaceResponse is resp (copied) with its first candidate's text parts
// replaced by those of an AfterModel hook's llm_response, in the place of
// the first of them, its other parts (calls, thoughts) kept; the finish
// reason is the hook's when it gives one. ok is false when the hook's
// response has no text, which leaves resp as it is, as in Gemini CLI.
func replaceResponse(resp *genai.GenerateContentResponse, v map[string]any) (*genai.GenerateContentResponse, bool, error) {
	texts, finish, ok, err := hookAnswer(v)
	if err != nil || !ok {
		return resp, false, err
	}
	var old []*genai.Part
	candidate := &genai.Candidate{}
	if len(resp.Candidates) > 0 {
		copied := *resp.Candidates[0]
		candidate = &copied
		if candidate.Content != nil {
			old = candidate.Content.Parts
		}
	}
	replacement := make([]*genai.Part, 0, len(texts))
	for i, text := range texts {
		p := &genai.Part{Text: text}
		if i == 0 {
			p.ThoughtSignature = firstTextSignature(old)
		}
		replacement = append(replacement, p)
	}
	var parts []*genai.Part
	placed := false
	for _, p := range old {
		switch {
		case !hookText(p):
			parts = append(parts, p)
		case !placed:
			parts = append(parts, replacement...)
			placed = true
		}
	}
	if !placed {
		parts = append(replacement, parts...)
	}
	candidate.Content = &genai.Content{Role: genai.RoleModel, Parts: parts}
	if finish != "" {
		candidate.FinishReason = finish
	}
	copied := *resp
	copied.Candidates = append([]*genai.Candidate{candidate}, resp.Candidates[min(1, len(resp.Candidates)):]...)
	return &copied, true, nil
}
