//go:build !unix

package experiment

import (
	"os"
	"syscall"
)

// groupAttr: without process groups, the command alone is ended.
func groupAttr() *syscall.SysProcAttr { return nil }

// killGroup kills the process pid.
func killGroup(pid int, _ bool) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
