package osshell

import (
	"os/exec"
	"syscall"
)

// verbatim has cmd.exe given line as typed (cmdLine); PowerShell splits
// its command line as programs do, and Go's quoting suits it.
func verbatim(cmd *exec.Cmd, s Shell, line string) {
	if s.Kind != Cmd {
		return
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CmdLine = s.cmdLine(line)
}
