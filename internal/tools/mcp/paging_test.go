package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
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

// A listing is given up as soon as its pages hold more than maxListBytes
// together, one page or many: no page is asked for past it.
func TestListAllBoundsTheBytes(t *testing.T) {
	for _, tc := range []struct {
		name      string
		page      int // bytes of a page's one item
		pages     int // the server's pages
		wantPages int // those read
		ok        bool
	}{
		{"within the bound", maxListBytes/4 - 16, 4, 4, true},
		{"past it in the fifth page", maxListBytes/4 - 16, 50, 5, false},
		{"past it in one page", maxListBytes, 1, 1, false},
	} {
		item := strings.Repeat("x", tc.page)
		read := 0
		got, err := listAll(t.Context(), "prompts", func(context.Context, string) ([]string, string, error) {
			read++
			next := ""
			if read < tc.pages {
				next = fmt.Sprint(read)
			}
			return []string{item}, next, nil
		})
		switch {
		case read != tc.wantPages:
			t.Errorf("%s: %d pages read, want %d", tc.name, read, tc.wantPages)
		case tc.ok && (err != nil || len(got) != tc.pages):
			t.Errorf("%s: %d items, %v", tc.name, len(got), err)
		case !tc.ok && (err == nil || got != nil || !strings.Contains(err.Error(), "listing prompts: the server offers more than 16 MiB of prompts, which gemini-ls does not read")):
			t.Errorf("%s: %d items, %v", tc.name, len(got), err)
		}
	}
}

// pagingServer is a streamable HTTP MCP server whose tools/list gives
// page(n) as its nth page, each with another cursor; pages counts them.
func pagingServer(t *testing.T, page func(n int64) []any) (url string, pages *atomic.Int64) {
	pages = new(atomic.Int64)
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
			result = map[string]any{"tools": page(n), "nextCursor": fmt.Sprint(n)}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}))
	t.Cleanup(ts.Close)
	return ts.URL, pages
}

// A server whose tools/list always gives another cursor is failed, saying
// why, rather than read until its timeout.
func TestEndlessToolListingFailsTheServer(t *testing.T) {
	url, pages := pagingServer(t, func(n int64) []any {
		return []any{map[string]any{"name": fmt.Sprintf("t%d", n), "inputSchema": map[string]any{"type": "object"}}}
	})
	m, _ := startedWith(t, Config{Servers: map[string]settings.MCPServer{"pager": {HTTPURL: url}}})
	if st := m.Servers()[0]; st.State != StateFailed || !strings.Contains(st.Error, "more than 100 pages") {
		t.Errorf("status: %+v", st)
	}
	if n := pages.Load(); n != maxListPages {
		t.Errorf("%d pages read, want %d", n, maxListPages)
	}
}

// liveHeap is the bytes of the heap in use, after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// A server whose pages each hold 4 MiB of tools is read only until its
// listing holds more than maxListBytes, and then failed, saying so:
// while it is read, gemini-ls holds at most the listing so far, within
// maxListBytes, and its last page (a hundred pages held 1.2 GiB).
func TestPagingServerHeldToMemoryBound(t *testing.T) {
	description := strings.Repeat("d", 1<<20-256) // a page just under 4 MiB
	var mu sync.Mutex
	before, most := liveHeap(), uint64(0)
	url, pages := pagingServer(t, func(n int64) []any {
		// Measured as each page is asked for: the pages before it held.
		heap := liveHeap()
		mu.Lock()
		most = max(most, heap)
		mu.Unlock()
		var tools []any
		for i := range 4 {
			tools = append(tools, map[string]any{"name": fmt.Sprintf("t%d_%d", n, i), "description": description, "inputSchema": map[string]any{"type": "object"}})
		}
		return tools
	})
	m, _ := startedWith(t, Config{Servers: map[string]settings.MCPServer{"pager": {HTTPURL: url}}})
	if st := m.Servers()[0]; st.State != StateFailed || !strings.Contains(st.Error, "the server offers more than 16 MiB of tools") {
		t.Errorf("status: %+v", st)
	}
	if n := pages.Load(); n != maxListBytes/(4<<20)+1 {
		t.Errorf("%d pages read, want the first past %d MiB", n, maxListBytes>>20)
	}
	mu.Lock()
	defer mu.Unlock()
	const bound = 2 * maxListBytes
	if grew := most - min(before, most); grew > bound {
		t.Errorf("the heap grew by %d MiB while the listing was read, past %d MiB", grew>>20, bound>>20)
	}
	t.Logf("the heap grew by at most %d MiB", (most-min(before, most))>>20)
}
