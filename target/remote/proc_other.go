//go:build !unix

package remote

import (
	"os"
	"syscall"
)

func groupAttr() *syscall.SysProcAttr { return nil }

func killGroup(p *os.Process) error { return p.Kill() }
