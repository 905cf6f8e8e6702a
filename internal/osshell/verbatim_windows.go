package osshell

import (
	"syscall"

	"github.com/gemini-ls/gemini-ls/internal/spawn"
)

// verbatim has cmd.exe given line as typed (cmdLine); PowerShell splits
// its command line as programs do, and Go's quoting suits it.
func verbatim(cmd *spawn.Cmd, s Shell, line string) {
	if s.Kind != Cmd {
		return
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CmdLine = s.cmdLine(line)
}
