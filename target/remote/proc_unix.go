//go:build unix

package remote

import (
	"os"
	"syscall"
)

// groupAttr puts a logs command in a process group of its own, so that
// killGroup stops the children it started as well.
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills p's process group.
func killGroup(p *os.Process) error {
	if err := syscall.Kill(-p.Pid, syscall.SIGKILL); err != nil {
		return p.Kill()
	}
	return nil
}
