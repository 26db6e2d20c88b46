//go:build unix

package procgroup

import (
	"os"
	"syscall"
)

// Attr puts a command in a process group of its own: set it as the
// command's SysProcAttr before it starts.
func Attr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// Term sends SIGTERM to the process group p leads; a group already gone is
// what was wanted.
func Term(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGTERM) }

// Kill sends SIGKILL to the process group p leads, or kills p alone when
// the group cannot be signalled.
func Kill(p *os.Process) error {
	if err := syscall.Kill(-p.Pid, syscall.SIGKILL); err != nil {
		return p.Kill()
	}
	return nil
}
