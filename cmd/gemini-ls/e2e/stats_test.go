package e2e

// The stats --output-format json and stream-json print, in Gemini CLI
// 0.61's shape (its JsonFormatter and uiTelemetryService), as far as the
// tests read them. They are the tests' own, not borrowed from package
// main: what the binary prints is held to the shape written here.

type stats struct {
	Models     map[string]modelStats `json:"models"`
	Tools      toolStats             `json:"tools"`
	DurationMS int64                 `json:"duration_ms"`
}

type modelStats struct {
	API    apiStats             `json:"api"`
	Tokens tokenStats           `json:"tokens"`
	Roles  map[string]roleStats `json:"roles"`
}

type apiStats struct {
	TotalRequests  int            `json:"totalRequests"`
	TotalErrors    int            `json:"totalErrors"`
	TotalLatencyMS int64          `json:"totalLatencyMs"`
	ErrorsByType   map[string]int `json:"errorsByType"`
}

type roleStats struct {
	TotalRequests  int        `json:"totalRequests"`
	TotalErrors    int        `json:"totalErrors"`
	TotalLatencyMS int64      `json:"totalLatencyMs"`
	Tokens         tokenStats `json:"tokens"`
}

type tokenStats struct {
	Input      int32 `json:"input"`
	Prompt     int32 `json:"prompt"`
	Candidates int32 `json:"candidates"`
	Total      int32 `json:"total"`
	Cached     int32 `json:"cached"`
	Thoughts   int32 `json:"thoughts"`
	Tool       int32 `json:"tool"`
}

type toolStats struct {
	TotalCalls      int                  `json:"totalCalls"`
	TotalSuccess    int                  `json:"totalSuccess"`
	TotalFail       int                  `json:"totalFail"`
	TotalDurationMS int64                `json:"totalDurationMs"`
	TotalDecisions  decisions            `json:"totalDecisions"`
	ByName          map[string]toolCount `json:"byName"`
}

type toolCount struct {
	Count      int       `json:"count"`
	Success    int       `json:"success"`
	Fail       int       `json:"fail"`
	DurationMS int64     `json:"durationMs"`
	Decisions  decisions `json:"decisions"`
}

type decisions struct {
	Accept     int `json:"accept"`
	Reject     int `json:"reject"`
	Modify     int `json:"modify"`
	AutoAccept int `json:"auto_accept"`
}

// streamStats are stream-json's result line's stats.
type streamStats struct {
	ToolCalls int                     `json:"tool_calls"`
	Models    map[string]streamTokens `json:"models"`
}

type streamTokens struct {
	TotalTokens int32 `json:"total_tokens"`
}
