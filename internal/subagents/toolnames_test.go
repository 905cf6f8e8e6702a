package subagents

import "testing"

func TestValidToolName(t *testing.T) {
	for _, tc := range []struct {
		name      string
		wildcards bool
		want      bool
	}{
		{"read_file", false, true},
		{"search_file_content", false, true}, // legacy alias
		{"discovered_tool_x", false, true},
		{"*", true, true},
		{"*", false, false},
		{"mcp_*", true, true},
		{"mcp_*", false, false},
		{"mcp_srv_tool", false, true},
		{"mcp_srv_*", true, true},
		{"mcp_srv_*", false, false},
		{"mcp__x", true, false},
		{"mcp_srv", false, false},
		{"mcp_srv___", false, false},
		{"mcp_s!v_tool", false, false},
		{"mcp_srv_to ol", false, false},
		{"rm_rf", true, false},
		{"Read_File", false, false},
	} {
		if got := ValidToolName(tc.name, tc.wildcards); got != tc.want {
			t.Errorf("ValidToolName(%q, %v) = %v, want %v", tc.name, tc.wildcards, got, tc.want)
		}
	}
}
