package lsptest

import "encoding/json"

// WithLanguageFeatures is p declaring experimental.gemini.languageFeatures:
// the client answers gemini/languageFeature with Client.OnLanguageFeature,
// as our plugins answer from the editor's other language servers.
func (p Profile) WithLanguageFeatures() Profile {
	p.Capabilities = withGeminiCapability(p.Capabilities, "languageFeatures")
	p.Name += " with language features"
	p.LanguageFeatures = true
	return p
}

// withGeminiCapability is caps with experimental.gemini.<name> true.
func withGeminiCapability(caps json.RawMessage, name string) json.RawMessage {
	var all map[string]any
	_ = json.Unmarshal(caps, &all)
	if all == nil {
		all = map[string]any{}
	}
	experimental, _ := all["experimental"].(map[string]any)
	if experimental == nil {
		experimental = map[string]any{}
	}
	gemini, _ := experimental["gemini"].(map[string]any)
	if gemini == nil {
		gemini = map[string]any{}
	}
	gemini[name] = true
	experimental["gemini"] = gemini
	all["experimental"] = experimental
	out, _ := json.Marshal(all)
	return out
}
