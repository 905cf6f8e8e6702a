package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// A listing is read page by page to its end, and given up, saying why,
// past maxListPages pages or maxListItems items, or at a cursor the
// server gave before.
func TestListAllIsBounded(t *testing.T) {
	pages := func(n, per int, cursor func(page int) string) func(context.Context, string) ([]int, string, error) {
		page := 0
		return func(context.Context, string) ([]int, string, error) {
			page++
			next := ""
			if page < n {
				next = cursor(page)
			}
			return make([]int, per), next, nil
		}
	}
	fresh := func(page int) string { return fmt.Sprint(page) }
	for _, tc := range []struct {
		name string
		list func(context.Context, string) ([]int, string, error)
		n    int
		err  string
	}{
		{"three pages", pages(3, 5, fresh), 15, ""},
		{"the most pages", pages(maxListPages, 1, fresh), maxListPages, ""},
		{"endless", pages(1<<30, 1, fresh), 0, "more than 100 pages or 10000 tools"},
		{"too many", pages(3, maxListItems/2+1, fresh), 0, "more than 100 pages or 10000 tools"},
		{"a cursor again", pages(1<<30, 1, func(page int) string { return fmt.Sprint(page % 3) }), 0, `gave the cursor "1" twice`},
	} {
		got, err := listAll(t.Context(), "tools", tc.list)
		switch {
		case tc.err == "" && (err != nil || len(got) != tc.n):
			t.Errorf("%s: %d items, %v; want %d", tc.name, len(got), err, tc.n)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.err)
		}
	}
}

// A server whose tools/list always gives another cursor is failed, saying
// why, rather than read until its timeout.
func TestEndlessToolListingFailsTheServer(t *testing.T) {
	var pages atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		if req.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		var result any = map[string]any{}
		switch req.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "pager", "version": "1"}}
		case "tools/list":
			n := pages.Add(1)
			result = map[string]any{"tools": []any{map[string]any{"name": fmt.Sprintf("t%d", n), "inputSchema": map[string]any{"type": "object"}}},
				"nextCursor": fmt.Sprint(n)}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}))
	t.Cleanup(ts.Close)
	m, _ := startedWith(t, Config{Servers: map[string]settings.MCPServer{"pager": {HTTPURL: ts.URL}}})
	if st := m.Servers()[0]; st.State != StateFailed || !strings.Contains(st.Error, "more than 100 pages") {
		t.Errorf("status: %+v", st)
	}
	if n := pages.Load(); n != maxListPages {
		t.Errorf("%d pages read, want %d", n, maxListPages)
	}
}
