//go:build linux

package bench

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// The soak's measuring code, tested on what the kernel and the Go runtime
// print (go test ./bench/ runs these; the soak itself is a benchmark).

func TestParseStatusReadsRSSAndThreads(t *testing.T) {
	status := "Name:\tgemini-ls\nVmHWM:\t   40000 kB\nVmRSS:\t   31744 kB\nThreads:\t13\nSigQ:\t0/95581\n"
	got, err := parseStatus(status)
	if err != nil {
		t.Fatal(err)
	}
	if want := (procSnapshot{rss: 31744 * 1024, threads: 13}); got != want {
		t.Errorf("parseStatus = %+v, want %+v", got, want)
	}
	if _, err := parseStatus("Name:\tx\nVmRSS:\t1 kB\n"); err == nil {
		t.Error("a status without Threads parsed")
	}
}

func TestSnapshotProcessOfThisProcess(t *testing.T) {
	snap, err := snapshotProcess(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if snap.rss <= 0 || snap.threads <= 0 || snap.fds < 3 {
		t.Errorf("this process: %+v, want RSS, threads and at least stdin, stdout and stderr", snap)
	}
	files, err := openFiles(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range files {
		n += c
	}
	if n < 3 {
		t.Errorf("openFiles = %v, want at least three", files)
	}
}

func TestHeapTraceKeepsTheLastCollectionsLiveHeap(t *testing.T) {
	h := newHeapTrace("")
	h.feed([]byte("{\"level\":\"info\",\"msg\":\"gc 3 @ the log\"}\ngc 1 @0.012s 2%: 0.010+1.2+0.003 ms clock, 0.021+0.5/1.1/0+0.006 ms cpu, 4->4->1 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 2 P\n"))
	if h.live != 1<<20 || h.gcs != 1 {
		t.Fatalf("after one gc line: live %d, %d collections", h.live, h.gcs)
	}
	// A line split across two reads counts once, when it ends.
	h.feed([]byte("gc 2 @1.5s 1%: 0.01+2+0.01 ms clock, 0.02+0/1/0+0.02 ms cpu, 12->13->"))
	if h.live != 1<<20 || h.gcs != 1 {
		t.Fatalf("half a line was read: live %d", h.live)
	}
	h.feed([]byte("7 MB, 14 MB goal, 0 MB stacks, 0 MB globals, 2 P (forced)\n"))
	if h.live != 7<<20 || h.gcs != 2 {
		t.Errorf("after the second line: live %d, %d collections, want 7 MB, 2", h.live, h.gcs)
	}
}

// realDump is a SIGQUIT dump of a go1.26 program (trimmed stacks): main,
// three workers it started, the runtime's own, goroutine 0 the signal's.
const realDump = `{"level":"info","msg":"before the dump"}
SIGQUIT: quit
PC=0x40866e m=0 sigcode=0

goroutine 0 gp=0x5841a0 m=0 mp=0x584f60 [idle]:
runtime.mcall()
	/usr/local/go/src/runtime/asm_amd64.s:496 +0x55 fp=0x7fffb04f75a8 sp=0x7fffb04f7590 pc=0x47da15

goroutine 1 gp=0x1681c87ea1e0 m=nil [sleep]:
main.main()
	/tmp/gd/main.go:11 +0xcb fp=0x1681c8848f48 sp=0x1681c8848ef0 pc=0x49e54b

goroutine 17 gp=0x1681c8880000 m=nil [force gc (idle)]:
runtime.forcegchelper()
	/usr/local/go/src/runtime/proc.go:375 +0xb3 fp=0x1681c881c7e0 sp=0x1681c881c7a8 pc=0x449593
created by runtime.init.7 in goroutine 1
	/usr/local/go/src/runtime/proc.go:363 +0x1a

goroutine 20 gp=0x1681c8880960 m=nil [chan receive, 2 minutes]:
main.worker(0x1681c8890000)
	/tmp/gd/main.go:5 +0x25 fp=0x1681c881d7d0 sp=0x1681c881d7a8 pc=0x49e3e5
created by main.main in goroutine 1
	/tmp/gd/main.go:9 +0x45

goroutine 21 gp=0x1681c8880b40 m=nil [chan receive]:
main.worker(0x1681c8890000)
	/tmp/gd/main.go:5 +0x25
created by main.main in goroutine 1
	/tmp/gd/main.go:9 +0x45

goroutine 22 gp=0x1681c8880d20 m=nil [chan receive]:
main.worker(0x1681c8890000)
	/tmp/gd/main.go:5 +0x25
created by main.main in goroutine 1
	/tmp/gd/main.go:9 +0x45

rax    0xfffffffffffffffc
`

func TestParseGoroutineDumpCountsByCreator(t *testing.T) {
	d := parseGoroutineDump(realDump)
	want := goroutineDump{total: 5, byCreator: map[string]int{"(main)": 1, "runtime.init.7": 1, "main.main": 3}}
	if !reflect.DeepEqual(d, want) {
		t.Errorf("parseGoroutineDump = %+v, want %+v", d, want)
	}
	base := goroutineDump{total: 3, byCreator: map[string]int{"(main)": 1, "runtime.init.7": 1, "main.main": 1}}
	grown := grownCreators(d, base)
	if want := []creatorDiff{{"main.main", 3, 1}}; !reflect.DeepEqual(grown, want) {
		t.Errorf("grownCreators = %+v, want %+v", grown, want)
	}
	if text := grownText(d, base); !strings.Contains(text, "main.main: 3 (was 1)") {
		t.Errorf("grownText = %q", text)
	}
}

func TestFileKindDropsInodeNumbers(t *testing.T) {
	for target, want := range map[string]string{
		"pipe:[4711]":            "pipe",
		"socket:[99]":            "socket",
		"anon_inode:[eventpoll]": "anon_inode:[eventpoll]",
		"/home/x/a:[1].jsonl":    "/home/x/a:[1].jsonl",
		"/dev/null":              "/dev/null",
	} {
		if got := fileKind(target); got != want {
			t.Errorf("fileKind(%q) = %q, want %q", target, got, want)
		}
	}
	got := grownFiles(map[string]int{"socket": 12, "pipe": 2, "/dev/null": 1}, map[string]int{"socket": 2, "pipe": 2})
	if want := []string{"/dev/null +1 (0 → 1)", "socket +10 (2 → 12)"}; !reflect.DeepEqual(got, want) {
		t.Errorf("grownFiles = %q, want %q", got, want)
	}
}

func TestGrowthComparesTheLastSampleWithTheBase(t *testing.T) {
	samples := []soakSample{{procSnapshot: procSnapshot{fds: 9}}, {procSnapshot: procSnapshot{fds: 10}}, {procSnapshot: procSnapshot{fds: 12}}, {procSnapshot: procSnapshot{fds: 11}}}
	g := growth(samples, 1, func(s soakSample) float64 { return float64(s.fds) })
	if g != 1.1 {
		t.Errorf("growth = %v, want 11/10", g)
	}
	if v := flatWithin(g); v != "flat" {
		t.Errorf("10%% more is %q, want flat", v)
	}
	if v := flatWithin(1.25); v != "GREW 25%" {
		t.Errorf("25%% more is %q", v)
	}
}

func TestSoakTableHasARowPerSample(t *testing.T) {
	table := soakTable("prompts", []soakSample{
		{heap: -1, procSnapshot: procSnapshot{rss: 20 << 20, fds: 9, threads: 7}},
		{done: 50, session: 1, heap: 3 << 20, procSnapshot: procSnapshot{rss: 30 << 20, fds: 11, threads: 13}, each: 3100e3, cpu: 6200e3},
	})
	want := "| prompts | session | RSS MB | live heap MB | fds | threads | prompt ms (median) | CPU/prompt ms |\n" +
		"|---:|---:|---:|---:|---:|---:|---:|---:|\n" +
		"| 0 | 0 | 20.0 | ? | 9 | 7 |  |  |\n" +
		"| 50 | 1 | 30.0 | 3 | 11 | 13 | 3.1 | 6.2 |\n"
	if table != want {
		t.Errorf("soakTable =\n%s\nwant\n%s", table, want)
	}
}

func TestReportPathNamesTheServer(t *testing.T) {
	if got := reportPath("/tmp/x/soak.md", "lsp"); got != "/tmp/x/soak-lsp.md" {
		t.Errorf("reportPath = %q", got)
	}
	if got := reportPath("", "acp"); !strings.HasSuffix(got, "gemini-ls-soak-acp.md") {
		t.Errorf("reportPath of no pattern = %q", got)
	}
}
