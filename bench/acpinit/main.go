//go:build linux

// Command acpinit times one ACP agent from spawn to its initialize answer:
// it starts the command given after its flags in a process group of its
// own, writes one initialize request at once, and stops the clock when the
// answer's line is read. It prints the time and the resident memory of
// the agent's whole process group at that moment, then kills the group
// (no shutdown is timed).
//
//	acpinit [-timeout 60s] COMMAND [ARG...]
//
// Output, one line: "initialize_ms=1.234 rss_kb=17408 procs=1".
// bench/acp-initialize.sh runs it for gemini-ls and Gemini CLI in turn.
// Linux only: it reads the group's memory from /proc.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// request is the initialize an editor with files and terminals sends.
const request = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true},"clientInfo":{"name":"acpinit","version":"1"}}}` + "\n"

func main() {
	timeout := flag.Duration("timeout", 60*time.Second, "give up when no answer came in this time")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: acpinit [-timeout D] COMMAND [ARG...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Args(), *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "acpinit:", err)
		os.Exit(1)
	}
}

func run(command []string, timeout time.Duration) error {
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stderr = io.Discard
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", command[0], err)
	}
	// The whole group goes, whatever happens: Gemini CLI relaunches
	// itself in a child process.
	defer func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	}()
	if _, err := io.WriteString(stdin, request); err != nil {
		return fmt.Errorf("writing initialize: %w", err)
	}
	answered := make(chan error, 1)
	go func() { answered <- readAnswer(stdout) }()
	select {
	case err := <-answered:
		if err != nil {
			return err
		}
	case <-time.After(timeout):
		return fmt.Errorf("no initialize answer in %s", timeout)
	}
	elapsed := time.Since(start)
	rss, procs := groupRSS(cmd.Process.Pid)
	fmt.Printf("initialize_ms=%.3f rss_kb=%d procs=%d\n", float64(elapsed.Microseconds())/1000, rss, procs)
	return nil
}

// readAnswer reads lines until the answer to request id 1.
func readAnswer(r io.Reader) error {
	lines := bufio.NewScanner(r)
	lines.Buffer(nil, 16<<20)
	for lines.Scan() {
		line := bytes.TrimSpace(lines.Bytes())
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(line, &m) != nil || string(m.ID) != "1" {
			continue
		}
		if m.Error != nil {
			return fmt.Errorf("initialize answered an error: %s", m.Error)
		}
		return nil
	}
	if err := lines.Err(); err != nil {
		return fmt.Errorf("reading the agent's output: %w", err)
	}
	return errors.New("the agent closed its output without answering initialize")
}

// groupRSS sums VmRSS over the processes of process group pgid, from
// /proc; 0 where there is no /proc.
func groupRSS(pgid int) (kb, procs int) {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, stat := range stats {
		b, err := os.ReadFile(stat)
		if err != nil {
			continue
		}
		// Fields after the command name, which may hold spaces: state,
		// ppid, pgrp.
		rest := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(rest) < 3 || rest[2] != strconv.Itoa(pgid) {
			continue
		}
		status, err := os.ReadFile(filepath.Join(filepath.Dir(stat), "status"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
				kb += n
				procs++
			}
		}
	}
	return kb, procs
}
